import type pg from 'pg';
import type { TenantId } from '@arbiter/common';
import { STATS_DECISION_REASONS as DECISION_REASONS, type CoverageStatsRow, type SessionStatsRow } from '@arbiter/monitoring';

/**
 * The direct aggregate over the window's sessions and coverage decisions — what `GET /admin/monitoring/stats`
 * computed before the rollups (docs/hot-paths.md "Stats"): the reference the rollup read is tested against
 * (`stats-rollup.int-spec.ts`) and the baseline of `bench:monitoring`. Not production code.
 *
 * Every stats figure in two statements, one pass each: the window's sessions (idx_session_tenant_created,
 * a range scan; every figure a FILTER aggregate, percentiles with percentile_cont) and its coverage
 * decisions (idx_coverage_decision_report). `byDay` adds per-day rows (ROLLUP, tenant's zone).
 * Run in one transaction whose planner settings suit a range scan that must not spill:
 * random_page_cost 1.1 (SSD/cached pages; the default 4 makes a 30-day window of a big table
 * look cheaper as a full sequential scan) and work_mem 64MB (the percentile sort of the window).
 */
export async function directStats(
  pool: pg.Pool,
  tenantId: TenantId,
  window: { timeZone: string; fromTs: string; toTs: string },
  evaluatorVersion: string,
  byDay: boolean,
): Promise<{ sessions: SessionStatsRow[]; coverage: CoverageStatsRow[] }> {
  // The zone is $4 and only sent when grouping by day (PostgreSQL refuses an untyped unused parameter).
  const day = (col: string) => (byDay ? `(${col} AT TIME ZONE $4::text)::date` : 'NULL::date');
  const groupBy = byDay ? 'GROUP BY ROLLUP (day)' : '';
  const dayOut = byDay ? `to_char(day, 'YYYY-MM-DD')` : 'NULL::text';
  const zone = byDay ? [window.timeZone] : [];
  const reasonCounts = DECISION_REASONS.map((r) => `(count(*) FILTER (WHERE reason = '${r}'))::int`).join(', ');
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    await client.query(`SET LOCAL random_page_cost = 1.1`);
    await client.query(`SET LOCAL work_mem = '64MB'`);
    const { rows: sessions } = await client.query<SessionStatsRow>(
      // x extracts every jsonb field once per row; OFFSET 0 keeps the planner from inlining the
      // extractions into each FILTER (which re-parses the same path up to 20 times per row).
      `WITH x AS (
         SELECT ${day('s.created_at')} AS day, s.status, s.latency_ms, s.feedback,
                s.route_trace IS NOT NULL AS routed,
                s.route_trace->'fusion'->>'decisionReason' AS reason,
                COALESCE(s.route_trace->>'needClarify', s.route_trace->'fusion'->>'needClarify') = 'true' AS clarify,
                (s.route_trace->'llmJudge'->>'triggered' = 'true' AND s.route_trace->'llmJudge'->'skipped' IS NULL) AS judge_called,
                CASE WHEN jsonb_typeof(s.route_trace->'llmJudge'->'tokens') = 'number' THEN (s.route_trace->'llmJudge'->>'tokens')::float8 END AS judge_tokens,
                s.self_evaluation->>'source' AS src,
                CASE WHEN jsonb_typeof(s.self_evaluation->'confidence') = 'number' THEN (s.self_evaluation->>'confidence')::float8 END AS conf
         FROM diagnosis_session s
         WHERE s.tenant_id = $1 AND s.created_at >= $2::timestamptz AND s.created_at < $3::timestamptz
         OFFSET 0
       )
       SELECT ${dayOut} AS day, count(*)::int AS n,
              (count(*) FILTER (WHERE status = 'PENDING'))::int AS pending,
              (count(*) FILTER (WHERE status = 'RUNNING'))::int AS running,
              (count(*) FILTER (WHERE status = 'SUCCESS'))::int AS success,
              (count(*) FILTER (WHERE status = 'FAILED'))::int AS failed,
              (count(*) FILTER (WHERE status = 'BAD_CASE'))::int AS "badCase",
              ARRAY[${reasonCounts},
                    (count(*) FILTER (WHERE reason IS NOT NULL AND reason NOT IN (${DECISION_REASONS.map((r) => `'${r}'`).join(', ')})))::int] AS reasons,
              (count(*) FILTER (WHERE routed))::int AS routed,
              (count(*) FILTER (WHERE clarify))::int AS clarify,
              (count(*) FILTER (WHERE judge_called))::int AS "judgeCalls",
              sum(judge_tokens) FILTER (WHERE judge_called) AS "judgeTokens",
              (count(conf) FILTER (WHERE src = 'llm'))::int AS "llmCount", avg(conf) FILTER (WHERE src = 'llm') AS "llmMean",
              (count(conf) FILTER (WHERE src = 'rule'))::int AS "ruleCount", avg(conf) FILTER (WHERE src = 'rule') AS "ruleMean",
              (count(*) FILTER (WHERE feedback = 'useful'))::int AS useful,
              (count(*) FILTER (WHERE feedback = 'not_useful'))::int AS "notUseful",
              count(latency_ms)::int AS "latencyCount",
              percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY latency_ms) AS latency
       FROM x ${groupBy}`,
      [tenantId, window.fromTs, window.toTs, ...zone],
    );
    const { rows: coverage } = await client.query<CoverageStatsRow>(
      `SELECT ${dayOut} AS day, count(*)::int AS n, (count(*) FILTER (WHERE verdict = 'covered'))::int AS covered
       FROM (
         SELECT ${day('d.session_created_at')} AS day, d.verdict
         FROM coverage_decision d
         WHERE d.tenant_id = $1 AND d.session_created_at >= $2::timestamptz AND d.session_created_at < $3::timestamptz
           AND d.evaluator_version = $${byDay ? 5 : 4}
       ) c ${groupBy}`,
      [tenantId, window.fromTs, window.toTs, ...zone, evaluatorVersion],
    );
    await client.query('COMMIT');
    return { sessions, coverage };
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
