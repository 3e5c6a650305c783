import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type Db, type RawBuilder } from '@arbiter/database';
import { FAILURE_FACT_COLUMNS, failureFactsSql, type FailureFactsRow } from '@arbiter/sessions';
import type { CoverageDecision, CoverageReasonCode, CoverageVerdict } from './evaluator/coverage.types.js';
import type { DateRange } from './report-range.js';

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
const UNCOVERED_FACTS_FROM = sql`FROM coverage_decision d
         JOIN diagnosis_session s ON s.tenant_id = d.tenant_id AND s.id = d.session_id
         LEFT JOIN bad_case_label l ON l.tenant_id = d.tenant_id AND l.session_id = d.session_id`;
const UNCOVERED_FACTS = failureFactsSql('s', { coverageReason: sql<string>`d.reason_code`, labelIntent: sql<string | null>`l.intent` });
const FACT_GROUP_BY = sql.raw(FAILURE_FACT_COLUMNS.map((_c, i) => String(i + 1)).join(', '));

/** Window bounds: local midnight of `from` to local midnight after `to`, in the range's zone. */
function rangeSql(range: DateRange): RawBuilder<boolean> {
  return sql<boolean>`d.session_created_at >= (${range.from}::date::timestamp AT TIME ZONE ${range.timeZone})
  AND d.session_created_at < ((${range.to}::date + 1)::timestamp AT TIME ZONE ${range.timeZone})`;
}

const DECISION_COLUMNS = sql`session_id AS "sessionId", evaluator_version AS "evaluatorVersion", verdict, reason_code AS "reasonCode",
              reference_count AS "referenceCount", top_score AS "topScore", channel, decided_at AS "decidedAt"`;

/**
 * The coverage module's decisions, reports and gaps (the backfill's SQL is {@link CoverageBackfillRepository}'s), on the typed
 * data layer (docs/data-layer.md). Every method is scoped by the tenant (first argument).
 */
@Injectable()
export class CoverageRepository {
  constructor(private readonly database: Database) {}

  /**
   * Inserts decisions, ignoring ones that already exist for (session, version). Returns how many were
   * new. Runs in an explicit transaction: on the embedded database (pglite-socket multiplexes every
   * connection onto one session) a large parameterised statement arrives in several TCP chunks, and
   * outside a transaction another connection's statement can run between its Parse and Bind
   * ("unnamed prepared statement does not exist"); inside one, the socket serves only this connection.
   */
  async insertDecisions(tenantId: TenantId, rows: readonly DecisionRow[], tx?: Db): Promise<number> {
    if (rows.length === 0) return 0;
    for (const r of rows) if (r.tenantId !== tenantId) throw new Error(`decision for session ${r.sessionId} belongs to another tenant`);
    if (!tx) return this.database.transaction((t) => this.insertDecisions(tenantId, rows, t));
    const inserted = await sql`
      INSERT INTO coverage_decision
        (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
      SELECT u.session_id, u.evaluator_version, ${tenantId}, u.channel, u.verdict, u.reason_code, u.reference_count, u.top_score, u.gap_key, u.session_created_at
      FROM unnest(${rows.map((r) => r.sessionId)}::uuid[], ${rows.map((r) => r.evaluatorVersion)}::varchar[], ${rows.map((r) => r.channel)}::varchar[],
                  ${rows.map((r) => r.verdict)}::varchar[], ${rows.map((r) => r.reasonCode)}::varchar[], ${rows.map((r) => r.referenceCount)}::int[],
                  ${rows.map((r) => r.topScore)}::float8[], ${rows.map((r) => r.gapKey)}::text[],
                  ${rows.map((r) => (typeof r.sessionCreatedAt === 'string' ? r.sessionCreatedAt : r.sessionCreatedAt.toISOString()))}::timestamptz[])
        AS u(session_id, evaluator_version, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
      ON CONFLICT ON CONSTRAINT pk_coverage_decision DO NOTHING
      RETURNING 1`.execute(tx);
    return inserted.rows.length;
  }

  /**
   * One decision as a CTE of the session's finish statement (docs/hot-paths.md "Chat turn"): inserted only when the
   * session is the tenant's; `RETURNING 1` when inserted. It reads the session by its key, not from the finish's CTE:
   * on Citus an `INSERT … SELECT` of a CTE's rows makes the coordinator copy them to every worker, while this one runs
   * on the tenant's shard (docs/SCALING.md "Hot paths on one shard"). The key and `created_at` are the ones the finish
   * leaves unchanged.
   */
  insertDecisionCte(r: DecisionRow): RawBuilder<unknown> {
    return sql`INSERT INTO coverage_decision
         (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
       SELECT s.id, ${r.evaluatorVersion}, s.tenant_id, ${r.channel}, ${r.verdict}, ${r.reasonCode},
              ${r.referenceCount}::int, ${r.topScore}::float8, ${r.gapKey}::text, s.created_at
         FROM diagnosis_session s WHERE s.tenant_id = ${r.tenantId}::uuid AND s.id = ${r.sessionId}::uuid
       ON CONFLICT ON CONSTRAINT pk_coverage_decision DO NOTHING
       RETURNING 1`;
  }

  async findDecision(tenantId: TenantId, sessionId: string, evaluatorVersion: string): Promise<StoredDecision | null> {
    const { rows } = await sql<StoredDecision>`SELECT ${DECISION_COLUMNS}
       FROM coverage_decision WHERE tenant_id = ${tenantId} AND session_id = ${sessionId} AND evaluator_version = ${evaluatorVersion}`.execute(this.database.db);
    return rows[0] ?? null;
  }

  /** Decisions of many sessions at once (conversation detail, lists). */
  async findDecisions(tenantId: TenantId, sessionIds: readonly string[], evaluatorVersion: string): Promise<Map<string, StoredDecision>> {
    if (sessionIds.length === 0) return new Map();
    const { rows } = await sql<StoredDecision>`SELECT ${DECISION_COLUMNS}
       FROM coverage_decision WHERE tenant_id = ${tenantId} AND session_id = ANY(${sessionIds}::uuid[]) AND evaluator_version = ${evaluatorVersion}`.execute(
      this.database.db,
    );
    return new Map(rows.map((r) => [r.sessionId, r]));
  }

  /** Coverage counts for one evaluator version over a calendar-day window in a time zone. */
  async report(tenantId: TenantId, evaluatorVersion: string, range: DateRange, channel: string | null): Promise<ReportRows> {
    const { rows } = await sql<{ day: string | null; channel: string | null; reasonCode: CoverageReasonCode | null; g: number; total: number; covered: number }>`
      WITH d AS (
        SELECT d.verdict, d.reason_code, d.channel, (d.session_created_at AT TIME ZONE ${range.timeZone})::date AS day
        FROM coverage_decision d
        WHERE d.tenant_id = ${tenantId} AND d.evaluator_version = ${evaluatorVersion} AND ${rangeSql(range)}
          AND (${channel}::text IS NULL OR d.channel = ${channel})
      )
      SELECT to_char(day, 'YYYY-MM-DD') AS day, channel, reason_code AS "reasonCode",
             GROUPING(day, channel, reason_code)::int AS g,
             count(*)::int AS total, (count(*) FILTER (WHERE verdict = 'covered'))::int AS covered
      FROM d
      GROUP BY GROUPING SETS ((), (day), (channel), (reason_code))`.execute(this.database.db);
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
    const { rows } = await sql<GapRow>`
      WITH g AS (
        SELECT d.gap_key, count(*)::int AS count, max(d.session_created_at) AS last_seen_at,
               array_agg(DISTINCT d.reason_code ORDER BY d.reason_code) AS reason_codes,
               (array_agg(d.session_id::text ORDER BY d.session_created_at DESC, d.session_id DESC))[1:${sql.lit(GAP_SAMPLE_SIZE)}] AS sample_session_ids
        FROM coverage_decision d
        WHERE d.tenant_id = ${tenantId} AND d.evaluator_version = ${evaluatorVersion} AND d.verdict = 'uncovered' AND ${rangeSql(range)}
          AND (${channel}::text IS NULL OR d.channel = ${channel})
        GROUP BY d.gap_key
        ORDER BY count(*) DESC, max(d.session_created_at) DESC, d.gap_key
        LIMIT ${limit}
      )
      SELECT g.gap_key AS "gapKey", s.query AS "sampleQuery", g.count, g.last_seen_at AS "lastSeenAt",
             g.reason_codes AS "reasonCodes", g.sample_session_ids AS "sampleSessionIds"
      FROM g
      LEFT JOIN diagnosis_session s ON s.tenant_id = ${tenantId} AND s.id = g.sample_session_ids[1]::uuid
      ORDER BY g.count DESC, g.last_seen_at DESC, g.gap_key`.execute(this.database.db);
    return rows;
  }

  /** Failure facts of the window's uncovered sessions, grouped (counts per distinct combination). */
  async uncoveredFacts(tenantId: TenantId, evaluatorVersion: string, range: DateRange, channel: string | null): Promise<FailureFactsGroup[]> {
    const { rows } = await sql<FailureFactsGroup>`SELECT ${UNCOVERED_FACTS}, count(*)::int AS count
      ${UNCOVERED_FACTS_FROM}
      WHERE d.tenant_id = ${tenantId} AND d.evaluator_version = ${evaluatorVersion} AND d.verdict = 'uncovered' AND ${rangeSql(range)}
        AND (${channel}::text IS NULL OR d.channel = ${channel})
      GROUP BY ${FACT_GROUP_BY}`.execute(this.database.db);
    return rows;
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
    const { rows } = await sql<FailureFactsGroup & { gapKey: string }>`SELECT ${UNCOVERED_FACTS}, count(*)::int AS count, d.gap_key AS "gapKey"
      ${UNCOVERED_FACTS_FROM}
      WHERE d.tenant_id = ${tenantId} AND d.evaluator_version = ${evaluatorVersion} AND d.verdict = 'uncovered' AND ${rangeSql(range)}
        AND (${channel}::text IS NULL OR d.channel = ${channel}) AND d.gap_key = ANY(${gapKeys}::text[])
      GROUP BY ${FACT_GROUP_BY}, d.gap_key`.execute(this.database.db);
    return rows;
  }

  /** The tenant's configured time zone (default UTC). */
  async tenantTimeZone(tenantId: TenantId): Promise<string> {
    const row = await this.database.db.selectFrom('tenant').select('time_zone').where('id', '=', tenantId).executeTakeFirst();
    return row?.time_zone ?? 'UTC';
  }
}
