import { Injectable } from '@nestjs/common';
import { Keyset, type KeysetCursor, type KeysetRow, type TenantId } from '@arbiter/common';
import { Database, sql } from '@arbiter/database';
import type { AgreementTable } from './agreement.js';
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

const ISO = (expr: string) => sql.raw(`to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);

/**
 * All monitoring SQL but the rollups' (`StatsRollupRepository`). Reads the sessions, tool invocations, feedback
 * and coverage tables of the other modules read-only; every statement is scoped by the tenant it takes first.
 * On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class MonitoringRepository {
  constructor(private readonly database: Database) {}

  /**
   * Resolves the bounds in the tenant's time zone (tenant.time_zone). Days: `from` = local midnight,
   * `to` = the local midnight after it. Instants: `to` included. With `defaultDays`, a missing `to` is the
   * end of today and a missing `from` is `defaultDays` local days before `to`. Null when the tenant is unknown.
   */
  async resolveWindow(tenantId: TenantId, from: TimeBound | null, to: TimeBound | null, defaultDays: number | null): Promise<ResolvedWindow | null> {
    const [fromInstant, fromDate] = boundParams(from);
    const [toInstant, toDate] = boundParams(to);
    const { rows } = await sql<ResolvedWindow>`
      WITH z AS (SELECT t.time_zone AS tz FROM tenant t WHERE t.id = ${tenantId}),
       t AS (
         SELECT z.tz,
           COALESCE(${toInstant}::timestamptz + interval '1 microsecond',
                    ((${toDate}::date + 1)::timestamp AT TIME ZONE z.tz),
                    CASE WHEN ${defaultDays}::int IS NOT NULL THEN (((now() AT TIME ZONE z.tz)::date + 1)::timestamp AT TIME ZONE z.tz) END) AS to_ts
         FROM z),
       f AS (
         SELECT t.tz, t.to_ts,
           COALESCE(${fromInstant}::timestamptz,
                    (${fromDate}::date::timestamp AT TIME ZONE t.tz),
                    CASE WHEN ${defaultDays}::int IS NOT NULL THEN (((t.to_ts AT TIME ZONE t.tz) - make_interval(days => ${defaultDays}::int)) AT TIME ZONE t.tz) END) AS from_ts
         FROM t)
       SELECT f.tz AS "timeZone",
              CASE WHEN f.from_ts IS NULL THEN NULL ELSE ${ISO('f.from_ts')} END AS "fromTs",
              CASE WHEN f.to_ts IS NULL THEN NULL ELSE ${ISO('f.to_ts')} END AS "toTs"
       FROM f`.execute(this.database.db);
    return rows[0] ?? null;
  }

  /**
   * A page of conversations, newest activity first, keyset over (last_activity_at, id) DESC.
   * Walks idx_conversation_tenant_activity backwards; the per-conversation aggregates (and the
   * status/intent filters) come from one pass over each visited conversation's sessions (idx_session_conversation).
   */
  async listConversations(tenantId: TenantId, filter: ConversationListFilter, after: KeysetCursor | null, limit: number): Promise<ConversationListRow[]> {
    const { fromTs, toTs } = filter.window;
    const { rows } = await sql<ConversationListRow>`
      SELECT c.id, c.channel, c.user_ref AS "userRef", c.created_at AS "createdAt", c.last_activity_at AS "lastActivityAt",
              ${sql.raw(CONVERSATION_KEYSET.columns)},
              a.session_count AS "sessionCount", a.last_status AS "lastStatus", a.lowest_confidence AS "lowestConfidence",
              COALESCE(a.any_bad_case, false) AS "anyBadCase"
       FROM conversation c
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS session_count,
                (array_agg(s.status ORDER BY s.created_at DESC, s.id DESC))[1] AS last_status,
                min((s.self_evaluation->>'confidence')::float8) AS lowest_confidence,
                bool_or(s.status = 'BAD_CASE') AS any_bad_case,
                bool_or(s.status = ${filter.status}::text) AS has_status,
                bool_or(s.intent = ${filter.intent}::text) AS has_intent
         FROM diagnosis_session s
         WHERE s.conversation_id = c.id AND s.tenant_id = ${tenantId}
       ) a
       WHERE c.tenant_id = ${tenantId}
         AND (${fromTs}::timestamptz IS NULL OR c.last_activity_at >= ${fromTs}::timestamptz)
         AND (${toTs}::timestamptz IS NULL OR c.last_activity_at < ${toTs}::timestamptz)
         AND (${filter.channel}::text IS NULL OR c.channel = ${filter.channel}::text)
         AND (${filter.status}::text IS NULL OR a.has_status)
         AND (${filter.intent}::text IS NULL OR a.has_intent)
         AND (${after?.createdAt ?? null}::timestamptz IS NULL OR (c.last_activity_at, c.id) < (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? null}::uuid))
       ORDER BY ${sql.raw(CONVERSATION_KEYSET.orderBy)}
       LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }

  /**
   * The conversation, every session in order (with its coverage decision of `evaluatorVersion` and its
   * feedback) and every tool invocation of those sessions, in ONE statement (one round trip, no N+1):
   * pk_conversation, idx_session_conversation, pk_coverage_decision, uq_session_feedback_session,
   * idx_tool_invocation_session. Null when the conversation is not this tenant's.
   */
  async conversationDetail(tenantId: TenantId, conversationId: string, evaluatorVersion: string): Promise<ConversationDetailRow | null> {
    const { rows } = await sql<ConversationDetailRow>`
      WITH c AS (
         SELECT c.id, c.channel, c.user_ref, c.created_at, c.last_activity_at
         FROM conversation c WHERE c.tenant_id = ${tenantId} AND c.id = ${conversationId}
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
         JOIN diagnosis_session s ON s.conversation_id = c.id AND s.tenant_id = ${tenantId}
         LEFT JOIN coverage_decision d ON d.session_id = s.id AND d.evaluator_version = ${evaluatorVersion} AND d.tenant_id = ${tenantId}
         LEFT JOIN session_feedback f ON f.session_id = s.id AND f.tenant_id = ${tenantId}
       ),
       t AS (
         SELECT t.id, t.session_id AS "sessionId", t.tool_name AS "toolName", t.arguments, t.status, t.result_summary AS "resultSummary",
                t.relevance_level AS "relevanceLevel", t.dedup_reason AS "dedupReason", t.retrieval_details AS "retrievalDetails",
                t.duration_ms AS "durationMs", t.error, t.created_at AS "createdAt"
         FROM s JOIN tool_invocation t ON t.session_id = s.id AND t.tenant_id = ${tenantId}
       )
       SELECT c.id, c.channel, c.user_ref AS "userRef", c.created_at AS "createdAt", c.last_activity_at AS "lastActivityAt",
              COALESCE((SELECT json_agg(s ORDER BY s."createdAt", s.id) FROM s), '[]'::json) AS sessions,
              COALESCE((SELECT json_agg(t ORDER BY t."sessionId", t."createdAt", t.id) FROM t), '[]'::json) AS "toolInvocations"
       FROM c`.execute(this.database.db);
    return rows[0] ?? null;
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
   * is left out of that pair. Each subquery names the tenant itself: Citus routes a statement to one shard only when
   * every table in it is filtered on the tenant (docs/SCALING.md "Hot paths on one shard").
   */
  async agreementTables(
    tenantId: TenantId,
    window: { fromTs: string; toTs: string },
    evaluatorVersion: string,
    threshold: number,
  ): Promise<{ selfEvaluation: AgreementTable; coverage: AgreementTable }> {
    const { rows } = await sql<Record<string, number>>`
      WITH x AS (
         SELECT f.feedback = 'useful' AS useful,
                (SELECT CASE WHEN jsonb_typeof(s.self_evaluation->'confidence') = 'number'
                             THEN (s.self_evaluation->>'confidence')::float8 / 100 >= ${threshold}::float8 END
                   FROM diagnosis_session s WHERE s.tenant_id = ${tenantId} AND s.id = f.session_id) AS se_good,
                (SELECT d.verdict = 'covered' FROM coverage_decision d
                  WHERE d.tenant_id = ${tenantId} AND d.session_id = f.session_id AND d.evaluator_version = ${evaluatorVersion}) AS cov_good
         FROM session_feedback f
         WHERE f.tenant_id = ${tenantId} AND f.feedback IN ('useful', 'not_useful')
           AND f.updated_at >= ${window.fromTs}::timestamptz AND f.updated_at < ${window.toTs}::timestamptz
       )
       SELECT (count(*) FILTER (WHERE se_good AND useful))::int AS se_gu, (count(*) FILTER (WHERE se_good AND NOT useful))::int AS se_gn,
              (count(*) FILTER (WHERE NOT se_good AND useful))::int AS se_bu, (count(*) FILTER (WHERE NOT se_good AND NOT useful))::int AS se_bn,
              (count(*) FILTER (WHERE cov_good AND useful))::int AS cv_gu, (count(*) FILTER (WHERE cov_good AND NOT useful))::int AS cv_gn,
              (count(*) FILTER (WHERE NOT cov_good AND useful))::int AS cv_bu, (count(*) FILTER (WHERE NOT cov_good AND NOT useful))::int AS cv_bn
       FROM x`.execute(this.database.db);
    const r = rows[0] ?? {};
    const n = (k: string): number => Number(r[k] ?? 0);
    return {
      selfEvaluation: { goodUseful: n('se_gu'), goodNotUseful: n('se_gn'), badUseful: n('se_bu'), badNotUseful: n('se_bn') },
      coverage: { goodUseful: n('cv_gu'), goodNotUseful: n('cv_gn'), badUseful: n('cv_bu'), badNotUseful: n('cv_bn') },
    };
  }
}
