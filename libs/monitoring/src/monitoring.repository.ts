import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Keyset, type KeysetCursor, type KeysetRow, type TenantId } from '@arbiter/common';
import type { AgreementTable } from './agreement.js';
import { STATS_DECISION_REASONS as DECISION_REASONS } from './stats-assembler.js';
import { boundParams, type TimeBound } from './time-bound.js';

/** A window resolved in the tenant's time zone: [fromTs, toTs) as exact timestamps (microseconds kept). */
export interface ResolvedWindow {
  timeZone: string;
  fromTs: string | null;
  toTs: string | null;
}

export interface ConversationListFilter {
  window: ResolvedWindow;
  channel: string | null;
  status: string | null;
  intent: string | null;
}

/** A conversation of the list; its keyset key is (last_activity_at, id) at microsecond precision. */
export interface ConversationListRow extends KeysetRow {
  id: string;
  channel: string;
  userRef: string | null;
  createdAt: Date;
  lastActivityAt: Date;
  sessionCount: number;
  lastStatus: string | null;
  lowestConfidence: number | null;
  anyBadCase: boolean;
}

/** Timestamps inside the JSON arrays arrive as ISO strings. */
export interface ConversationDetailRow {
  id: string;
  channel: string;
  userRef: string | null;
  createdAt: Date;
  lastActivityAt: Date;
  sessions: SessionDetailRow[];
  toolInvocations: ToolInvocationRow[];
}

export interface SessionDetailRow {
  id: string;
  channel: string;
  userRef: string | null;
  query: string;
  answer: string | null;
  status: string;
  intent: string | null;
  stepCount: number;
  toolCallCount: number;
  references: unknown[];
  media: unknown[];
  knowledgeSearched: boolean;
  selfEvaluation: Record<string, unknown> | null;
  feedback: string | null;
  feedbackComment: string | null;
  feedbackAt: string | null;
  routeTrace: Record<string, unknown> | null;
  error: string | null;
  latencyMs: number | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  coverageVerdict: string | null;
  coverageReasonCode: string | null;
  coverageEvaluatorVersion: string | null;
  coverageReferenceCount: number | null;
  coverageTopScore: number | null;
  coverageDecidedAt: string | null;
}

export interface ToolInvocationRow {
  id: string;
  sessionId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  status: string;
  resultSummary: string | null;
  relevanceLevel: string | null;
  dedupReason: string | null;
  retrievalDetails: Record<string, unknown> | null;
  durationMs: number | null;
  error: string | null;
  createdAt: string;
}

/** One row of the session aggregate: the whole window (day null) or one day of it (tenant's zone). */
export interface SessionStatsRow {
  day: string | null;
  n: number;
  pending: number;
  running: number;
  success: number;
  failed: number;
  badCase: number;
  /** Counts per DECISION_REASONS entry, in that order, then `other`. */
  reasons: number[];
  routed: number;
  clarify: number;
  judgeCalls: number;
  judgeTokens: number | null;
  llmCount: number;
  llmMean: number | null;
  ruleCount: number;
  ruleMean: number | null;
  useful: number;
  notUseful: number;
  latencyCount: number;
  /** [p50, p95] (percentile_cont), null without latencies. */
  latency: number[] | null;
}

export interface CoverageStatsRow {
  day: string | null;
  n: number;
  covered: number;
}

const CONVERSATION_KEYSET = new Keyset('c.last_activity_at', 'c.id');

const ISO = (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * All monitoring SQL. Reads the sessions, tool invocations, feedback and coverage tables of the other
 * modules read-only; every statement is scoped by the tenant it takes first.
 */
@Injectable()
export class MonitoringRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Resolves the bounds in the tenant's time zone (tenant.time_zone). Days: `from` = local midnight,
   * `to` = the local midnight after it. Instants: `to` included. With `defaultDays`, a missing `to` is the
   * end of today and a missing `from` is `defaultDays` local days before `to`. Null when the tenant is unknown.
   */
  async resolveWindow(tenantId: TenantId, from: TimeBound | null, to: TimeBound | null, defaultDays: number | null): Promise<ResolvedWindow | null> {
    const [fromInstant, fromDate] = boundParams(from);
    const [toInstant, toDate] = boundParams(to);
    const rows: ResolvedWindow[] = await this.dataSource.query(
      `WITH z AS (SELECT t.time_zone AS tz FROM tenant t WHERE t.id = $1),
       t AS (
         SELECT z.tz,
           COALESCE($4::timestamptz + interval '1 microsecond',
                    (($5::date + 1)::timestamp AT TIME ZONE z.tz),
                    CASE WHEN $6::int IS NOT NULL THEN (((now() AT TIME ZONE z.tz)::date + 1)::timestamp AT TIME ZONE z.tz) END) AS to_ts
         FROM z),
       f AS (
         SELECT t.tz, t.to_ts,
           COALESCE($2::timestamptz,
                    ($3::date::timestamp AT TIME ZONE t.tz),
                    CASE WHEN $6::int IS NOT NULL THEN (((t.to_ts AT TIME ZONE t.tz) - make_interval(days => $6::int)) AT TIME ZONE t.tz) END) AS from_ts
         FROM t)
       SELECT f.tz AS "timeZone",
              CASE WHEN f.from_ts IS NULL THEN NULL ELSE ${ISO('f.from_ts')} END AS "fromTs",
              CASE WHEN f.to_ts IS NULL THEN NULL ELSE ${ISO('f.to_ts')} END AS "toTs"
       FROM f`,
      [tenantId, fromInstant, fromDate, toInstant, toDate, defaultDays],
    );
    return rows[0] ?? null;
  }

  /**
   * A page of conversations, newest activity first, keyset over (last_activity_at, id) DESC.
   * Walks idx_conversation_tenant_activity backwards; the per-conversation aggregates (and the
   * status/intent filters) come from one pass over each visited conversation's sessions (idx_session_conversation).
   */
  listConversations(tenantId: TenantId, filter: ConversationListFilter, after: KeysetCursor | null, limit: number): Promise<ConversationListRow[]> {
    return this.dataSource.query(
      `SELECT c.id, c.channel, c.user_ref AS "userRef", c.created_at AS "createdAt", c.last_activity_at AS "lastActivityAt",
              ${CONVERSATION_KEYSET.columns},
              a.session_count AS "sessionCount", a.last_status AS "lastStatus", a.lowest_confidence AS "lowestConfidence",
              COALESCE(a.any_bad_case, false) AS "anyBadCase"
       FROM conversation c
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS session_count,
                (array_agg(s.status ORDER BY s.created_at DESC, s.id DESC))[1] AS last_status,
                min((s.self_evaluation->>'confidence')::float8) AS lowest_confidence,
                bool_or(s.status = 'BAD_CASE') AS any_bad_case,
                bool_or(s.status = $5::text) AS has_status,
                bool_or(s.intent = $6::text) AS has_intent
         FROM diagnosis_session s
         WHERE s.conversation_id = c.id AND s.tenant_id = $1
       ) a
       WHERE c.tenant_id = $1
         AND ($2::timestamptz IS NULL OR c.last_activity_at >= $2::timestamptz)
         AND ($3::timestamptz IS NULL OR c.last_activity_at < $3::timestamptz)
         AND ($4::text IS NULL OR c.channel = $4::text)
         AND ($5::text IS NULL OR a.has_status)
         AND ($6::text IS NULL OR a.has_intent)
         AND ($7::timestamptz IS NULL OR (c.last_activity_at, c.id) < ($7::timestamptz, $8::uuid))
       ORDER BY ${CONVERSATION_KEYSET.orderBy}
       LIMIT $9`,
      [tenantId, filter.window.fromTs, filter.window.toTs, filter.channel, filter.status, filter.intent, after?.createdAt ?? null, after?.id ?? null, limit],
    );
  }

  /**
   * The conversation, every session in order (with its coverage decision of `evaluatorVersion` and its
   * feedback) and every tool invocation of those sessions, in ONE statement (one round trip, no N+1):
   * pk_conversation, idx_session_conversation, pk_coverage_decision, uq_session_feedback_session,
   * idx_tool_invocation_session. Null when the conversation is not this tenant's.
   */
  async conversationDetail(tenantId: TenantId, conversationId: string, evaluatorVersion: string): Promise<ConversationDetailRow | null> {
    const rows: ConversationDetailRow[] = await this.dataSource.query(
      `WITH c AS (
         SELECT c.id, c.channel, c.user_ref, c.created_at, c.last_activity_at
         FROM conversation c WHERE c.tenant_id = $1 AND c.id = $2
       ),
       s AS (
         SELECT s.id, s.channel, s.user_ref AS "userRef", s.query, s.answer, s.status, s.intent,
                s.step_count AS "stepCount", s.tool_call_count AS "toolCallCount", s.source_references AS "references", s.media,
                s.knowledge_searched AS "knowledgeSearched", s.self_evaluation AS "selfEvaluation", s.feedback,
                f.comment AS "feedbackComment", f.updated_at AS "feedbackAt",
                s.route_trace AS "routeTrace", s.error, s.latency_ms AS "latencyMs",
                s.created_at AS "createdAt", s.updated_at AS "updatedAt", s.finished_at AS "finishedAt",
                d.verdict AS "coverageVerdict", d.reason_code AS "coverageReasonCode", d.evaluator_version AS "coverageEvaluatorVersion",
                d.reference_count AS "coverageReferenceCount", d.top_score AS "coverageTopScore", d.decided_at AS "coverageDecidedAt"
         FROM c
         JOIN diagnosis_session s ON s.conversation_id = c.id AND s.tenant_id = $1
         LEFT JOIN coverage_decision d ON d.session_id = s.id AND d.evaluator_version = $3 AND d.tenant_id = $1
         LEFT JOIN session_feedback f ON f.session_id = s.id AND f.tenant_id = $1
       ),
       t AS (
         SELECT t.id, t.session_id AS "sessionId", t.tool_name AS "toolName", t.arguments, t.status, t.result_summary AS "resultSummary",
                t.relevance_level AS "relevanceLevel", t.dedup_reason AS "dedupReason", t.retrieval_details AS "retrievalDetails",
                t.duration_ms AS "durationMs", t.error, t.created_at AS "createdAt"
         FROM s JOIN tool_invocation t ON t.session_id = s.id AND t.tenant_id = $1
       )
       SELECT c.id, c.channel, c.user_ref AS "userRef", c.created_at AS "createdAt", c.last_activity_at AS "lastActivityAt",
              COALESCE((SELECT json_agg(s ORDER BY s."createdAt", s.id) FROM s), '[]'::json) AS sessions,
              COALESCE((SELECT json_agg(t ORDER BY t."sessionId", t."createdAt", t.id) FROM t), '[]'::json) AS "toolInvocations"
       FROM c`,
      [tenantId, conversationId, evaluatorVersion],
    );
    return rows[0] ?? null;
  }

  /**
   * Every stats figure in two statements, one pass each: the window's sessions (idx_session_tenant_created,
   * a range scan; every figure a FILTER aggregate, percentiles with percentile_cont) and its coverage
   * decisions (idx_coverage_decision_report). `byDay` adds per-day rows (ROLLUP, tenant's zone).
   * Run in one transaction whose planner settings suit a range scan that must not spill:
   * random_page_cost 1.1 (SSD/cached pages; the default 4 makes a 30-day window of a big table
   * look cheaper as a full sequential scan) and work_mem 64MB (the percentile sort of the window).
   */
  async stats(
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
    return this.dataSource.transaction('READ COMMITTED', async (em) => {
      await em.query(`SET LOCAL random_page_cost = 1.1`);
      await em.query(`SET LOCAL work_mem = '64MB'`);
      const sessions: SessionStatsRow[] = await em.query(
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
      const coverage: CoverageStatsRow[] = await em.query(
        `SELECT ${dayOut} AS day, count(*)::int AS n, (count(*) FILTER (WHERE verdict = 'covered'))::int AS covered
         FROM (
           SELECT ${day('d.session_created_at')} AS day, d.verdict
           FROM coverage_decision d
           WHERE d.tenant_id = $1 AND d.session_created_at >= $2::timestamptz AND d.session_created_at < $3::timestamptz
             AND d.evaluator_version = $${byDay ? 5 : 4}
         ) c ${groupBy}`,
        [tenantId, window.fromTs, window.toTs, ...zone, evaluatorVersion],
      );
      return { sessions, coverage };
    });
  }

  /**
   * The 2×2 tables of the agreement stats (docs/learning.md "Agreement"): every feedback given in [fromTs, toTs)
   * (`session_feedback.updated_at`, the time of the current verdict) against the session's self-evaluation
   * (confidence / 100 ≥ `threshold` = good) and its coverage decision of `evaluatorVersion` (covered = good).
   * Reads the window's feedback through `idx_session_feedback_tenant_value_updated` (tenant, feedback,
   * updated_at) and each session and decision by primary key: cost in proportion to the feedback of the window,
   * not to its sessions. The lookups are scalar subqueries on purpose: as joins, PostgreSQL 15 hashes the whole
   * session table once the window holds a few thousand feedbacks (measured 480 ms at 1M sessions / 10k feedbacks,
   * against ~200 ms for 10k primary-key lookups). A session without a (numeric) self-evaluation or without a decision
   * is left out of that pair.
   */
  async agreementTables(
    tenantId: TenantId,
    window: { fromTs: string; toTs: string },
    evaluatorVersion: string,
    threshold: number,
  ): Promise<{ selfEvaluation: AgreementTable; coverage: AgreementTable }> {
    const rows: Record<string, number>[] = await this.dataSource.query(
      `WITH x AS (
         SELECT f.feedback = 'useful' AS useful,
                (SELECT CASE WHEN jsonb_typeof(s.self_evaluation->'confidence') = 'number'
                             THEN (s.self_evaluation->>'confidence')::float8 / 100 >= $5::float8 END
                   FROM diagnosis_session s WHERE s.tenant_id = f.tenant_id AND s.id = f.session_id) AS se_good,
                (SELECT d.verdict = 'covered' FROM coverage_decision d
                  WHERE d.tenant_id = f.tenant_id AND d.session_id = f.session_id AND d.evaluator_version = $4) AS cov_good
         FROM session_feedback f
         WHERE f.tenant_id = $1 AND f.feedback IN ('useful', 'not_useful')
           AND f.updated_at >= $2::timestamptz AND f.updated_at < $3::timestamptz
       )
       SELECT (count(*) FILTER (WHERE se_good AND useful))::int AS se_gu, (count(*) FILTER (WHERE se_good AND NOT useful))::int AS se_gn,
              (count(*) FILTER (WHERE NOT se_good AND useful))::int AS se_bu, (count(*) FILTER (WHERE NOT se_good AND NOT useful))::int AS se_bn,
              (count(*) FILTER (WHERE cov_good AND useful))::int AS cv_gu, (count(*) FILTER (WHERE cov_good AND NOT useful))::int AS cv_gn,
              (count(*) FILTER (WHERE NOT cov_good AND useful))::int AS cv_bu, (count(*) FILTER (WHERE NOT cov_good AND NOT useful))::int AS cv_bn
       FROM x`,
      [tenantId, window.fromTs, window.toTs, evaluatorVersion, threshold],
    );
    const r = rows[0] ?? {};
    const n = (k: string): number => Number(r[k] ?? 0);
    return {
      selfEvaluation: { goodUseful: n('se_gu'), goodNotUseful: n('se_gn'), badUseful: n('se_bu'), badNotUseful: n('se_bn') },
      coverage: { goodUseful: n('cv_gu'), goodNotUseful: n('cv_gn'), badUseful: n('cv_bu'), badNotUseful: n('cv_bn') },
    };
  }
}
