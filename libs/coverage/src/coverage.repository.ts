import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { sql, type RawBuilder } from '@arbiter/database';
import { FAILURE_FACT_COLUMNS, failureFactsSqlText, runSucceededSqlText, type FailureFactsRow } from '@arbiter/sessions';
import type { CoverageDecision, CoverageReasonCode, CoverageVerdict } from './evaluator/coverage.types.js';
import type { DateRange } from './report-range.js';

/** What runs SQL: the DataSource or a transaction's EntityManager. */
export type SqlExecutor = Pick<EntityManager, 'query'>;

/** A decision plus the denormalised session facts the reports aggregate on. */
export interface DecisionRow extends CoverageDecision {
  gapKey: string;
  sessionCreatedAt: Date | string;
}

/** A stored decision as the Session view and monitoring show it. */
export interface StoredDecision {
  sessionId: string;
  evaluatorVersion: string;
  verdict: CoverageVerdict;
  reasonCode: CoverageReasonCode;
  referenceCount: number;
  topScore: number;
  channel: string;
  decidedAt: Date;
}

/** A session row as the evaluator needs it (jsonb as parsed by pg; validated by the evaluator). */
export interface CandidateSession {
  id: string;
  /** `created_at::text`: exact (microseconds) so a keyset cursor neither skips nor repeats rows. */
  createdAt: string;
  channel: string;
  status: string;
  /** How the run ended (`diagnosis_session.outcome`, unchanged by feedback); null for rows written before it existed. */
  outcome?: string | null;
  query: string;
  answer: string | null;
  references: unknown;
  media: unknown;
  knowledgeSearched: boolean;
}

export interface KeysetPosition {
  createdAt: string;
  id: string;
}

export interface CountRow {
  total: number;
  covered: number;
}

export interface ReportRows {
  totals: CountRow;
  byReason: { reasonCode: CoverageReasonCode; total: number }[];
  byChannel: ({ channel: string } & CountRow)[];
  byDay: ({ date: string } & CountRow)[];
}

export interface GapRow {
  gapKey: string;
  sampleQuery: string | null;
  count: number;
  lastSeenAt: Date | string;
  reasonCodes: CoverageReasonCode[];
  sampleSessionIds: string[];
}

export const GAP_SAMPLE_SIZE = 5;

/** Uncovered sessions sharing the same failure facts (docs/learning.md "Failure attribution"). */
export interface FailureFactsGroup extends FailureFactsRow {
  count: number;
}

/**
 * The failure facts of an uncovered decision's session (read model: `diagnosis_session`, `tool_invocation` and
 * `bad_case_label`, docs/CONVENTIONS.md). Grouped on every fact column, so Node receives one row per distinct
 * combination, not one per session.
 */
const UNCOVERED_FACTS_FROM = `FROM coverage_decision d
         JOIN diagnosis_session s ON s.tenant_id = d.tenant_id AND s.id = d.session_id
         LEFT JOIN bad_case_label l ON l.tenant_id = d.tenant_id AND l.session_id = d.session_id`;
const UNCOVERED_FACTS = failureFactsSqlText('s', { coverageReasonSql: 'd.reason_code', labelIntentSql: 'l.intent' });
const FACT_GROUP_BY = FAILURE_FACT_COLUMNS.map((_c, i) => String(i + 1)).join(', ');

/** Window bounds in SQL: local midnight of `from` to local midnight after `to`, in the range's zone. */
const RANGE_SQL = `d.session_created_at >= ($3::date::timestamp AT TIME ZONE $5)
  AND d.session_created_at < (($4::date + 1)::timestamp AT TIME ZONE $5)`;

/** All SQL of the coverage module. Every method is scoped by the tenant (first argument). */
@Injectable()
export class CoverageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts decisions, ignoring ones that already exist for (session, version). Returns how many were
   * new. Runs in an explicit transaction: on the embedded database (pglite-socket multiplexes every
   * connection onto one session) a large parameterised statement arrives in several TCP chunks, and
   * outside a transaction another connection's statement can run between its Parse and Bind
   * ("unnamed prepared statement does not exist"); inside one, the socket serves only this connection.
   */
  async insertDecisions(tenantId: TenantId, rows: readonly DecisionRow[], executor?: SqlExecutor): Promise<number> {
    if (rows.length === 0) return 0;
    for (const r of rows) if (r.tenantId !== tenantId) throw new Error(`decision for session ${r.sessionId} belongs to another tenant`);
    if (!executor) return this.dataSource.transaction((manager) => this.insertDecisions(tenantId, rows, manager));
    const inserted: unknown[] = await executor.query(
      `INSERT INTO coverage_decision
         (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
       SELECT u.session_id, u.evaluator_version, $1, u.channel, u.verdict, u.reason_code, u.reference_count, u.top_score, u.gap_key, u.session_created_at
       FROM unnest($2::uuid[], $3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::int[], $8::float8[], $9::text[], $10::timestamptz[])
         AS u(session_id, evaluator_version, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
       ON CONFLICT ON CONSTRAINT pk_coverage_decision DO NOTHING
       RETURNING 1`,
      [
        tenantId,
        rows.map((r) => r.sessionId),
        rows.map((r) => r.evaluatorVersion),
        rows.map((r) => r.channel),
        rows.map((r) => r.verdict),
        rows.map((r) => r.reasonCode),
        rows.map((r) => r.referenceCount),
        rows.map((r) => r.topScore),
        rows.map((r) => r.gapKey),
        rows.map((r) => (typeof r.sessionCreatedAt === 'string' ? r.sessionCreatedAt : r.sessionCreatedAt.toISOString())),
      ],
    );
    return inserted.length;
  }

  /**
   * One decision as a CTE of the session's finish statement (docs/hot-paths.md "Chat turn"): inserted
   * only when `sessionCte` returned the session row; `RETURNING 1` when inserted.
   */
  insertDecisionCte(sessionCte: string, r: DecisionRow): RawBuilder<unknown> {
    const s = (column: string) => sql.ref(`${sessionCte}.${column}`);
    return sql`INSERT INTO coverage_decision
         (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
       SELECT ${s('id')}, ${r.evaluatorVersion}, ${s('tenant_id')}, ${r.channel}, ${r.verdict}, ${r.reasonCode},
              ${r.referenceCount}::int, ${r.topScore}::float8, ${r.gapKey}::text, ${s('created_at')}
         FROM ${sql.table(sessionCte)} WHERE ${s('id')} = ${r.sessionId}::uuid AND ${s('tenant_id')} = ${r.tenantId}::uuid
       ON CONFLICT ON CONSTRAINT pk_coverage_decision DO NOTHING
       RETURNING 1`;
  }

  async findDecision(tenantId: TenantId, sessionId: string, evaluatorVersion: string): Promise<StoredDecision | null> {
    const rows: StoredDecision[] = await this.dataSource.query(
      `SELECT session_id AS "sessionId", evaluator_version AS "evaluatorVersion", verdict, reason_code AS "reasonCode",
              reference_count AS "referenceCount", top_score AS "topScore", channel, decided_at AS "decidedAt"
       FROM coverage_decision WHERE tenant_id = $1 AND session_id = $2 AND evaluator_version = $3`,
      [tenantId, sessionId, evaluatorVersion],
    );
    return rows[0] ?? null;
  }

  /** Decisions of many sessions at once (conversation detail, lists). */
  async findDecisions(tenantId: TenantId, sessionIds: readonly string[], evaluatorVersion: string): Promise<Map<string, StoredDecision>> {
    if (sessionIds.length === 0) return new Map();
    const rows: StoredDecision[] = await this.dataSource.query(
      `SELECT session_id AS "sessionId", evaluator_version AS "evaluatorVersion", verdict, reason_code AS "reasonCode",
              reference_count AS "referenceCount", top_score AS "topScore", channel, decided_at AS "decidedAt"
       FROM coverage_decision WHERE tenant_id = $1 AND session_id = ANY($2::uuid[]) AND evaluator_version = $3`,
      [tenantId, sessionIds, evaluatorVersion],
    );
    return new Map(rows.map((r) => [r.sessionId, r]));
  }

  /** One session in the shape the evaluator needs, or null (unknown or another tenant's). */
  async findCandidate(tenantId: TenantId, sessionId: string, executor: SqlExecutor = this.dataSource): Promise<CandidateSession | null> {
    const rows: CandidateSession[] = await executor.query(`${CANDIDATE_SELECT} WHERE s.tenant_id = $1 AND s.id = $2`, [tenantId, sessionId]);
    return rows[0] ?? null;
  }

  /**
   * The next keyset page of succeeded sessions (created_at, id ascending) that have no decision for
   * `evaluatorVersion`, optionally inside a created_at window [fromTs, toTs).
   */
  async nextUndecided(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
    limit: number,
  ): Promise<CandidateSession[]> {
    // A keyset page is small and already ordered by the index: a parallel plan only adds a Gather
    // Merge (measured 3x slower once decisions exist), so this read runs serial.
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL max_parallel_workers_per_gather = 0');
      return manager.query(
        `${CANDIDATE_SELECT}
         WHERE s.tenant_id = $1
           AND ${runSucceededSqlText('s')}
           AND ($3::timestamptz IS NULL OR (s.created_at, s.id) > ($3::timestamptz, $4::uuid))
           AND ($5::timestamptz IS NULL OR s.created_at >= $5::timestamptz)
           AND ($6::timestamptz IS NULL OR s.created_at < $6::timestamptz)
           AND NOT EXISTS (SELECT 1 FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id AND d.evaluator_version = $2)
         ORDER BY s.created_at, s.id
         LIMIT $7`,
        [tenantId, evaluatorVersion, after?.createdAt ?? null, after?.id ?? null, window.fromTs, window.toTs, limit],
      ) as Promise<CandidateSession[]>;
    });
  }

  /**
   * How many sessions `nextUndecided` would still return after `after` (same filter, one count): the backfill job's
   * remaining items, for its progress total.
   */
  async countUndecided(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
  ): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS n
         FROM diagnosis_session s
        WHERE s.tenant_id = $1
          AND ${runSucceededSqlText('s')}
          AND ($3::timestamptz IS NULL OR (s.created_at, s.id) > ($3::timestamptz, $4::uuid))
          AND ($5::timestamptz IS NULL OR s.created_at >= $5::timestamptz)
          AND ($6::timestamptz IS NULL OR s.created_at < $6::timestamptz)
          AND NOT EXISTS (SELECT 1 FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id AND d.evaluator_version = $2)`,
      [tenantId, evaluatorVersion, after?.createdAt ?? null, after?.id ?? null, window.fromTs, window.toTs],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Coverage counts for one evaluator version over a calendar-day window in a time zone. */
  async report(tenantId: TenantId, evaluatorVersion: string, range: DateRange, channel: string | null): Promise<ReportRows> {
    const rows: { day: string | null; channel: string | null; reasonCode: CoverageReasonCode | null; g: number; total: number; covered: number }[] =
      await this.dataSource.query(
        `WITH d AS (
           SELECT d.verdict, d.reason_code, d.channel, (d.session_created_at AT TIME ZONE $5)::date AS day
           FROM coverage_decision d
           WHERE d.tenant_id = $1 AND d.evaluator_version = $2 AND ${RANGE_SQL}
             AND ($6::text IS NULL OR d.channel = $6)
         )
         SELECT to_char(day, 'YYYY-MM-DD') AS day, channel, reason_code AS "reasonCode",
                GROUPING(day, channel, reason_code)::int AS g,
                count(*)::int AS total, (count(*) FILTER (WHERE verdict = 'covered'))::int AS covered
         FROM d
         GROUP BY GROUPING SETS ((), (day), (channel), (reason_code))`,
        [tenantId, evaluatorVersion, range.from, range.to, range.timeZone, channel],
      );
    // GROUPING bits: day=4, channel=2, reason_code=1 (1 = rolled up).
    const result: ReportRows = { totals: { total: 0, covered: 0 }, byReason: [], byChannel: [], byDay: [] };
    for (const r of rows) {
      const counts = { total: r.total, covered: r.covered };
      if (r.g === 7) result.totals = counts;
      else if (r.g === 3 && r.day !== null) result.byDay.push({ date: r.day, ...counts });
      else if (r.g === 5 && r.channel !== null) result.byChannel.push({ channel: r.channel, ...counts });
      else if (r.g === 6 && r.reasonCode !== null) result.byReason.push({ reasonCode: r.reasonCode, total: r.total });
    }
    return result;
  }

  /** Uncovered queries grouped by gap key, most frequent first, with a representative query text. */
  async gaps(tenantId: TenantId, evaluatorVersion: string, range: DateRange, channel: string | null, limit: number): Promise<GapRow[]> {
    return this.dataSource.query(
      `WITH g AS (
         SELECT d.gap_key, count(*)::int AS count, max(d.session_created_at) AS last_seen_at,
                array_agg(DISTINCT d.reason_code ORDER BY d.reason_code) AS reason_codes,
                (array_agg(d.session_id::text ORDER BY d.session_created_at DESC, d.session_id DESC))[1:${GAP_SAMPLE_SIZE}] AS sample_session_ids
         FROM coverage_decision d
         WHERE d.tenant_id = $1 AND d.evaluator_version = $2 AND d.verdict = 'uncovered' AND ${RANGE_SQL}
           AND ($6::text IS NULL OR d.channel = $6)
         GROUP BY d.gap_key
         ORDER BY count(*) DESC, max(d.session_created_at) DESC, d.gap_key
         LIMIT $7
       )
       SELECT g.gap_key AS "gapKey", s.query AS "sampleQuery", g.count, g.last_seen_at AS "lastSeenAt",
              g.reason_codes AS "reasonCodes", g.sample_session_ids AS "sampleSessionIds"
       FROM g
       LEFT JOIN diagnosis_session s ON s.tenant_id = $1 AND s.id = g.sample_session_ids[1]::uuid
       ORDER BY g.count DESC, g.last_seen_at DESC, g.gap_key`,
      [tenantId, evaluatorVersion, range.from, range.to, range.timeZone, channel, limit],
    );
  }

  /** Failure facts of the window's uncovered sessions, grouped (counts per distinct combination). */
  async uncoveredFacts(tenantId: TenantId, evaluatorVersion: string, range: DateRange, channel: string | null): Promise<FailureFactsGroup[]> {
    return this.dataSource.query(
      `SELECT ${UNCOVERED_FACTS}, count(*)::int AS count
       ${UNCOVERED_FACTS_FROM}
       WHERE d.tenant_id = $1 AND d.evaluator_version = $2 AND d.verdict = 'uncovered' AND ${RANGE_SQL}
         AND ($6::text IS NULL OR d.channel = $6)
       GROUP BY ${FACT_GROUP_BY}`,
      [tenantId, evaluatorVersion, range.from, range.to, range.timeZone, channel],
    );
  }

  /** The same per gap key, for the listed gaps only. */
  async gapFacts(
    tenantId: TenantId,
    evaluatorVersion: string,
    range: DateRange,
    channel: string | null,
    gapKeys: readonly string[],
  ): Promise<(FailureFactsGroup & { gapKey: string })[]> {
    if (gapKeys.length === 0) return [];
    return this.dataSource.query(
      `SELECT ${UNCOVERED_FACTS}, count(*)::int AS count, d.gap_key AS "gapKey"
       ${UNCOVERED_FACTS_FROM}
       WHERE d.tenant_id = $1 AND d.evaluator_version = $2 AND d.verdict = 'uncovered' AND ${RANGE_SQL}
         AND ($6::text IS NULL OR d.channel = $6) AND d.gap_key = ANY($7::text[])
       GROUP BY ${FACT_GROUP_BY}, d.gap_key`,
      [tenantId, evaluatorVersion, range.from, range.to, range.timeZone, channel, gapKeys],
    );
  }

  /** Timestamps of local midnight at `from` and the midnight after `to` in `timeZone` (null stays open). */
  async dayBounds(from: string | null, to: string | null, timeZone: string): Promise<{ fromTs: string | null; toTs: string | null }> {
    const rows: { fromTs: Date | null; toTs: Date | null }[] = await this.dataSource.query(
      `SELECT ($1::date::timestamp AT TIME ZONE $3) AS "fromTs", (($2::date + 1)::timestamp AT TIME ZONE $3) AS "toTs"`,
      [from, to, timeZone],
    );
    const r = rows[0];
    return { fromTs: r?.fromTs ? new Date(r.fromTs).toISOString() : null, toTs: r?.toTs ? new Date(r.toTs).toISOString() : null };
  }

  /** The tenant's configured time zone (default UTC). */
  async tenantTimeZone(tenantId: TenantId): Promise<string> {
    const rows: { timeZone: string }[] = await this.dataSource.query(`SELECT time_zone AS "timeZone" FROM tenant WHERE id = $1`, [tenantId]);
    return rows[0]?.timeZone ?? 'UTC';
  }
}

const CANDIDATE_SELECT = `SELECT s.id, s.created_at::text AS "createdAt", s.channel, s.status, s.outcome, s.query, s.answer,
    s.source_references AS "references", s.media, s.knowledge_searched AS "knowledgeSearched"
  FROM diagnosis_session s`;
