import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type RawBuilder } from '@arbiter/database';

/** Calendar days `from`..`to` (inclusive) in `timeZone`: sessions created from the first instant of `from` to the end of `to`. */
export interface SessionDayWindow {
  from: string;
  to: string;
  timeZone: string;
}

export interface SessionWindowTotals {
  sessions: number;
  badCases: number;
  useful: number;
  notUseful: number;
  /** route_trace.fusion.decisionReason → sessions (sessions without one are not counted), as stored. */
  decisionReasons: Record<string, number>;
}

/** One non-empty bin of the self-evaluation confidence: `bin` 1..10 covers [10·(bin−1), 10·bin), bin 10 includes 100. */
export interface ConfidenceBinRow {
  bin: number;
  count: number;
}

/** The tenant's sessions `s` of the window (and channel, when given). */
function windowSql(tenantId: TenantId, window: SessionDayWindow, channel: string | null): RawBuilder<boolean> {
  return sql<boolean>`s.tenant_id = ${tenantId}
  AND s.created_at >= (${window.from}::date::timestamp AT TIME ZONE ${window.timeZone})
  AND s.created_at < ((${window.to}::date + 1)::timestamp AT TIME ZONE ${window.timeZone})
  AND (${channel}::varchar IS NULL OR s.channel = ${channel})`;
}

/**
 * Aggregates over the tenant's sessions of a day window, optionally one channel (the operator console's
 * overview, docs/console.md). Read-only over `diagnosis_session`; walks idx_session_tenant_created. On the typed data layer
 * (docs/data-layer.md).
 */
@Injectable()
export class SessionStatsRepository {
  constructor(private readonly database: Database) {}

  /** Session, bad-case and feedback counts and the decision reasons of the stored route traces: one statement. */
  async windowTotals(tenantId: TenantId, window: SessionDayWindow, channel: string | null): Promise<SessionWindowTotals> {
    const { rows } = await sql<{ sessions: number; badCases: number; useful: number; notUseful: number; reasons: Record<string, number> | null }>`
      WITH s AS (
        SELECT s.status, s.feedback, s.route_trace->'fusion'->>'decisionReason' AS reason
        FROM diagnosis_session s
        WHERE ${windowSql(tenantId, window, channel)}
      ),
      r AS (SELECT s.reason, count(*)::int AS n FROM s WHERE s.reason IS NOT NULL GROUP BY s.reason)
      SELECT count(*)::int AS sessions,
             (count(*) FILTER (WHERE s.status = 'BAD_CASE'))::int AS "badCases",
             (count(*) FILTER (WHERE s.feedback = 'useful'))::int AS useful,
             (count(*) FILTER (WHERE s.feedback = 'not_useful'))::int AS "notUseful",
             (SELECT jsonb_object_agg(r.reason, r.n) FROM r) AS reasons
      FROM s`.execute(this.database.db);
    const row = rows[0];
    return {
      sessions: Number(row?.sessions ?? 0),
      badCases: Number(row?.badCases ?? 0),
      useful: Number(row?.useful ?? 0),
      notUseful: Number(row?.notUseful ?? 0),
      decisionReasons: row?.reasons ?? {},
    };
  }

  /**
   * Sessions per tenth of the self-evaluation confidence (numbers within 0..100; others and sessions without
   * a self-evaluation are left out), non-empty bins only, ascending.
   */
  async confidenceBins(tenantId: TenantId, window: SessionDayWindow, channel: string | null): Promise<ConfidenceBinRow[]> {
    const { rows } = await sql<{ bin: number; count: number }>`
      SELECT LEAST(width_bucket(c.confidence, 0, 100, 10), 10) AS bin, count(*)::int AS count
      FROM (
        SELECT (s.self_evaluation->>'confidence')::float8 AS confidence
        FROM diagnosis_session s
        WHERE ${windowSql(tenantId, window, channel)} AND jsonb_typeof(s.self_evaluation->'confidence') = 'number'
      ) c
      WHERE c.confidence >= 0 AND c.confidence <= 100
      GROUP BY 1
      ORDER BY 1`.execute(this.database.db);
    return rows.map((r) => ({ bin: Number(r.bin), count: Number(r.count) }));
  }
}
