import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, type RawBuilder, sql, type Tx } from '@arbiter/database';
import type { CoverageStatsRow, SessionStatsRow } from './monitoring.repository.js';

/** Counter columns shared by session_stats_rollup, session_stats_delta and session_stats_vector (migration 0090). */
const COUNTERS = [
  'sessions',
  'pending',
  'running',
  'success',
  'failed',
  'bad_case',
  'reason_rule_high_confidence',
  'reason_semantic_override',
  'reason_no_match',
  'reason_llm_judge',
  'reason_fusion_fallback',
  'reason_semantic_fallback',
  'reason_other',
  'routed',
  'clarify',
  'judge_calls',
  'judge_tokens',
  'llm_count',
  'llm_sum',
  'rule_count',
  'rule_sum',
  'useful',
  'not_useful',
  'latency_count',
] as const;
const REASON_COLUMNS = COUNTERS.filter((c) => c.startsWith('reason_'));

/** The counter columns, each through `f` (column names and SQL of this file only, never input). */
const list = (f: (c: string) => string): RawBuilder<unknown> => sql.raw(COUNTERS.map(f).join(', '));
/** A delta's latency as a signed multiset entry: v added, -(v + 1) removed (stats_latency_multiset). */
const SIGNED_LATENCY = sql.raw(`CASE WHEN latency_count > 0 THEN latency_ms ELSE -latency_ms - 1 END`);

/** The window [f, t) split into whole 15-minute buckets [lo, hi) and the edges [f, lo) and [hi, t) read from the source. */
const windowCte = (fromTs: string, toTs: string) => sql`w AS (
  SELECT b.f, b.t, CASE WHEN b.cf < b.ft THEN b.cf ELSE b.t END AS lo, CASE WHEN b.cf < b.ft THEN b.ft ELSE b.t END AS hi
  FROM (SELECT ${fromTs}::timestamptz AS f, ${toTs}::timestamptz AS t,
               CASE WHEN stats_bucket(${fromTs}::timestamptz) = ${fromTs}::timestamptz THEN ${fromTs}::timestamptz
                    ELSE stats_bucket(${fromTs}::timestamptz) + interval '15 minutes' END AS cf,
               stats_bucket(${toTs}::timestamptz) AS ft) b)`;

/** The two partial-bucket edges of the window, read from the source rows: [f, lo) and [hi, t). */
const EDGES = [
  [sql.raw('f'), sql.raw('lo')],
  [sql.raw('hi'), sql.raw('t')],
] as const;

/** The rollup buckets a fold wrote (inserted or added to), per family. */
export interface FoldResult {
  sessionBuckets: number;
  coverageBuckets: number;
}

export interface RebuildResult {
  sessionBuckets: number;
  coverageBuckets: number;
}

/**
 * The stats rollups of migration 0090 (docs/hot-paths.md, "Stats"): folding the deltas the triggers
 * append, rebuilding a tenant's rollup from the source tables, and the stats read (rollup + unfolded
 * deltas + the window's partial-bucket edges from the source, one statement per figure family). Rows
 * come back in the shape of the direct aggregate over the sessions (the test oracle, test/monitoring/direct-stats.ts)
 * so one assembler serves both. Every statement is scoped by the tenant it takes first. On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class StatsRollupRepository {
  constructor(private readonly database: Database) {}

  /**
   * Moves the tenant's pending deltas into the rollup: each family in one statement (DELETE … RETURNING
   * feeding an upsert), so a delta is folded exactly once even when two folds race (the second skips
   * rows the first deleted) and a reader sees either both the delta or its folded effect, never both.
   * The upsert writes a bucket's signed latencies as they are and merges them from `EXCLUDED` (Citus refuses a
   * subquery in `DO UPDATE SET`, docs/SCALING.md "Running on Citus"); a bucket it inserted is then reduced to its
   * remaining values, sorted, in the same transaction, so no reader sees the signed entries.
   * The upsert is the statement itself, its CTEs feeding its `SELECT`: as a CTE of a `SELECT` it made Citus copy the
   * aggregated deltas to every worker, and the stats read opened a transaction on each (docs/SCALING.md "Hot paths on
   * one shard").
   */
  async fold(tenantId: TenantId): Promise<FoldResult> {
    return this.database.transaction((tx) => this.foldIn(tx, tenantId));
  }

  private async foldIn(tx: Tx, tenantId: TenantId): Promise<FoldResult> {
    const { rows: sessionRows } = await sql<{ bucket: Date; inserted: boolean }>`
      WITH d AS (DELETE FROM session_stats_delta WHERE tenant_id = ${tenantId}::uuid RETURNING *),
       agg AS (
         SELECT bucket, ${list((c) => `sum(${c}) AS ${c}`)},
                COALESCE(array_agg(${SIGNED_LATENCY}) FILTER (WHERE latency_count <> 0), '{}') AS lat
         FROM d GROUP BY bucket)
      INSERT INTO session_stats_rollup AS r (tenant_id, bucket, ${list((c) => c)}, latencies)
      SELECT ${tenantId}::uuid, bucket, ${list((c) => c)}, lat FROM agg
      ON CONFLICT (tenant_id, bucket) DO UPDATE SET
        ${list((c) => `${c} = r.${c} + EXCLUDED.${c}`)},
        latencies = stats_latency_multiset(r.latencies || EXCLUDED.latencies)
      RETURNING r.bucket, (r.xmax = 0) AS inserted`.execute(tx);
    const inserted = sessionRows.filter((row) => row.inserted).map((row) => row.bucket);
    if (inserted.length) {
      await sql`UPDATE session_stats_rollup SET latencies = stats_latency_multiset(latencies)
                 WHERE tenant_id = ${tenantId} AND bucket = ANY(${inserted}::timestamptz[]) AND latencies <> '{}'`.execute(tx);
    }
    const { rows: coverageRows } = await sql<{ bucket: Date }>`
      WITH d AS (DELETE FROM coverage_stats_delta WHERE tenant_id = ${tenantId}::uuid RETURNING *),
       agg AS (SELECT bucket, evaluator_version, sum(decisions) AS decisions, sum(covered) AS covered FROM d GROUP BY 1, 2)
      INSERT INTO coverage_stats_rollup AS r (tenant_id, bucket, evaluator_version, decisions, covered)
      SELECT ${tenantId}::uuid, bucket, evaluator_version, decisions, covered FROM agg
      ON CONFLICT (tenant_id, bucket, evaluator_version) DO UPDATE SET decisions = r.decisions + EXCLUDED.decisions, covered = r.covered + EXCLUDED.covered
      RETURNING r.bucket`.execute(tx);
    return { sessionBuckets: sessionRows.length, coverageBuckets: coverageRows.length };
  }

  /**
   * The backfill: drops the tenant's rollup and deltas and recomputes the rollup from diagnosis_session
   * and coverage_decision (inserted in bucket order, so a window's rows sit on few pages), in one REPEATABLE READ transaction (one snapshot: a change committed after it
   * keeps its delta, one committed before is in the recomputed rows and its delta is deleted). A
   * concurrent fold can make the transaction fail to serialize; it is retried.
   */
  async rebuild(tenantId: TenantId, record?: (tx: Tx, result: RebuildResult) => Promise<void>): Promise<RebuildResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.database.db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute(async (tx) => {
            const result = await this.rebuildIn(tx, tenantId);
            // The operator's rebuild in the audit log, in its transaction (docs/http-edge.md "Audit log").
            if (record) await record(tx, result);
            return result;
          });
      } catch (error) {
        if (attempt >= 5 || !isSerializationFailure(error)) throw error;
      }
    }
  }

  private async rebuildIn(tx: Tx, tenantId: TenantId): Promise<RebuildResult> {
    await tx.deleteFrom('session_stats_delta').where('tenant_id', '=', tenantId).execute();
    await tx.deleteFrom('session_stats_rollup').where('tenant_id', '=', tenantId).execute();
    await tx.deleteFrom('coverage_stats_delta').where('tenant_id', '=', tenantId).execute();
    await tx.deleteFrom('coverage_stats_rollup').where('tenant_id', '=', tenantId).execute();
    const { rows: sessions } = await sql<{ n: number }>`
      WITH ins AS (
         INSERT INTO session_stats_rollup (tenant_id, bucket, ${list((c) => c)}, latencies)
         SELECT ${tenantId}::uuid, v.bucket, ${list((c) => `sum(v.${c})`)},
                COALESCE(array_agg(v.latency_ms ORDER BY v.latency_ms) FILTER (WHERE v.latency_ms IS NOT NULL), '{}')
           FROM diagnosis_session s
           CROSS JOIN LATERAL session_stats_vector(s.tenant_id, s.created_at, s.status, s.feedback, s.route_trace, s.self_evaluation, s.latency_ms, 1) v
          WHERE s.tenant_id = ${tenantId}
          GROUP BY v.bucket
          ORDER BY v.bucket
         RETURNING 1)
       SELECT count(*)::int AS n FROM ins`.execute(tx);
    const { rows: coverage } = await sql<{ n: number }>`
      WITH ins AS (
         INSERT INTO coverage_stats_rollup (tenant_id, bucket, evaluator_version, decisions, covered)
         SELECT ${tenantId}::uuid, stats_bucket(d.session_created_at), d.evaluator_version, count(*), count(*) FILTER (WHERE d.verdict = 'covered')
           FROM coverage_decision d WHERE d.tenant_id = ${tenantId}
          GROUP BY 2, 3
          ORDER BY 2, 3
         RETURNING 1)
       SELECT count(*)::int AS n FROM ins`.execute(tx);
    return { sessionBuckets: sessions[0]?.n ?? 0, coverageBuckets: coverage[0]?.n ?? 0 };
  }

  /**
   * The stats of [fromTs, toTs): whole buckets from the rollup plus the unfolded deltas of those buckets
   * (a bucket with deltas gets its latency multiset corrected), partial buckets at the edges from the
   * source rows through the same session_stats_vector. Two statements, each reading one snapshot.
   */
  async stats(
    tenantId: TenantId,
    window: { timeZone: string; fromTs: string; toTs: string },
    evaluatorVersion: string,
    byDay: boolean,
  ): Promise<{ sessions: SessionStatsRow[]; coverage: CoverageStatsRow[] }> {
    const day = (col: string) => (byDay ? sql`(${sql.raw(col)} AT TIME ZONE ${window.timeZone}::text)::date` : sql`NULL::date`);
    const groupBy = byDay ? sql`GROUP BY ROLLUP (day)` : sql``;
    // Buckets whose counts cancelled out are no day of the window (the direct aggregate has no row for them).
    const having = (n: string) => (byDay ? sql.raw(`HAVING GROUPING(day) = 1 OR sum(${n}) <> 0`) : sql``);
    const int = (c: string) => `COALESCE(sum(${c}), 0)::int`;
    const i = (c: string) => sql.raw(int(c));
    const dayColumn = byDay ? sql`day` : sql`NULL::date AS day`;
    const w = windowCte(window.fromTs, window.toTs);
    const { rows: sessions } = await sql<SessionStatsRow>`
      WITH ${w},
       r AS (
         SELECT r.bucket, ${list((c) => `r.${c}`)}, r.latencies
         FROM session_stats_rollup r WHERE r.tenant_id = ${tenantId} AND r.bucket >= (SELECT lo FROM w) AND r.bucket < (SELECT hi FROM w)),
       p AS (
         SELECT d.bucket, ${list((c) => `sum(d.${c}) AS ${c}`)},
                array_agg(CASE WHEN d.latency_count > 0 THEN d.latency_ms ELSE -d.latency_ms - 1 END) FILTER (WHERE d.latency_count <> 0) AS lat
         FROM session_stats_delta d WHERE d.tenant_id = ${tenantId} AND d.bucket >= (SELECT lo FROM w) AND d.bucket < (SELECT hi FROM w)
         GROUP BY d.bucket),
       units AS (
         SELECT COALESCE(r.bucket, p.bucket) AS ts, ${list((c) => `COALESCE(r.${c}, 0) + COALESCE(p.${c}, 0) AS ${c}`)},
                CASE WHEN p.lat IS NULL THEN COALESCE(r.latencies, '{}') ELSE stats_latency_multiset(COALESCE(r.latencies, '{}') || p.lat) END AS latencies
         FROM r FULL JOIN p ON p.bucket = r.bucket
         UNION ALL
         ${sql.join(
           EDGES.map(
             ([from, to]) => sql`SELECT s.created_at, ${list((c) => `v.${c}`)}, CASE WHEN v.latency_ms IS NULL THEN '{}'::int[] ELSE ARRAY[v.latency_ms] END
         FROM diagnosis_session s
         CROSS JOIN LATERAL session_stats_vector(s.tenant_id, s.created_at, s.status, s.feedback, s.route_trace, s.self_evaluation, s.latency_ms, 1) v
         WHERE s.tenant_id = ${tenantId} AND s.created_at >= (SELECT ${from} FROM w) AND s.created_at < (SELECT ${to} FROM w)`,
           ),
           sql`\n         UNION ALL\n         `,
         )}),
       ud AS MATERIALIZED (SELECT ${day('ts')} AS day, * FROM units),
       counts AS (
         SELECT ${dayColumn}, ${i('sessions')} AS n, ${i('pending')} AS pending, ${i('running')} AS running, ${i('success')} AS success,
                ${i('failed')} AS failed, ${i('bad_case')} AS "badCase",
                ARRAY[${sql.raw(REASON_COLUMNS.map(int).join(', '))}] AS reasons,
                ${i('routed')} AS routed, ${i('clarify')} AS clarify, ${i('judge_calls')} AS "judgeCalls",
                sum(judge_tokens) AS "judgeTokens",
                ${i('llm_count')} AS "llmCount", CASE WHEN sum(llm_count) > 0 THEN sum(llm_sum) / sum(llm_count) END AS "llmMean",
                ${i('rule_count')} AS "ruleCount", CASE WHEN sum(rule_count) > 0 THEN sum(rule_sum) / sum(rule_count) END AS "ruleMean",
                ${i('useful')} AS useful, ${i('not_useful')} AS "notUseful", ${i('latency_count')} AS "latencyCount"
         FROM ud ${groupBy} ${having('sessions')}),
       pct AS (
         SELECT ${dayColumn}, percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY v) AS latency
         FROM (SELECT ud.day, unnest(ud.latencies) AS v FROM ud) l ${groupBy})
       SELECT to_char(c.day, 'YYYY-MM-DD') AS day, c.n, c.pending, c.running, c.success, c.failed, c."badCase", c.reasons, c.routed, c.clarify,
              c."judgeCalls", c."judgeTokens", c."llmCount", c."llmMean", c."ruleCount", c."ruleMean", c.useful, c."notUseful", c."latencyCount",
              pct.latency
       FROM counts c LEFT JOIN pct ON pct.day IS NOT DISTINCT FROM c.day`.execute(this.database.db);
    const { rows: coverage } = await sql<CoverageStatsRow>`
      WITH ${w},
       units AS (
         SELECT r.bucket AS ts, r.decisions AS n, r.covered FROM coverage_stats_rollup r
          WHERE r.tenant_id = ${tenantId} AND r.evaluator_version = ${evaluatorVersion} AND r.bucket >= (SELECT lo FROM w) AND r.bucket < (SELECT hi FROM w)
         UNION ALL
         SELECT d.bucket, d.decisions, d.covered FROM coverage_stats_delta d
          WHERE d.tenant_id = ${tenantId} AND d.evaluator_version = ${evaluatorVersion} AND d.bucket >= (SELECT lo FROM w) AND d.bucket < (SELECT hi FROM w)
         ${sql.join(
           EDGES.map(
             ([from, to]) => sql`UNION ALL
         SELECT d.session_created_at, 1, CASE WHEN d.verdict = 'covered' THEN 1 ELSE 0 END FROM coverage_decision d
          WHERE d.tenant_id = ${tenantId} AND d.evaluator_version = ${evaluatorVersion} AND d.session_created_at >= (SELECT ${from} FROM w) AND d.session_created_at < (SELECT ${to} FROM w)`,
           ),
           sql`\n         `,
         )})
       SELECT ${byDay ? sql`to_char(day, 'YYYY-MM-DD')` : sql`NULL::text`} AS day, ${i('n')} AS n, ${i('covered')} AS covered
       FROM (SELECT ${day('ts')} AS day, n, covered FROM units) c ${groupBy} ${having('n')}`.execute(this.database.db);
    return { sessions, coverage };
  }
}

function isSerializationFailure(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '40001';
}
