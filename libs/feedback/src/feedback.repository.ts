import { Injectable } from '@nestjs/common';
import type { KeysetCursor, KeysetRow, TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db, type RawBuilder } from '@arbiter/database';
import {
  FAILURE_FACT_COLUMNS,
  SessionFeedbackState,
  failureFactsSql,
  type FailureFactsRow,
  type SessionFeedbackRead,
  type FeedbackValue,
  type SelfEvaluation,
  type SessionStatus,
} from '@arbiter/sessions';
import { decideFeedback, type FeedbackRejection } from './feedback-transition.js';
import type { BadCaseReviewStatus, CaseSourceType, FaultCategory } from './feedback.types.js';

export type FeedbackOutcome =
  | { kind: 'not_found' }
  | { kind: 'rejected'; reason: FeedbackRejection }
  | {
      kind: 'ok';
      changed: boolean;
      feedback: FeedbackValue;
      status: SessionStatus;
      caseId: string | null;
      caseEvent: 'created' | 'restored' | 'retracted' | null;
    };

/** A bad case; its keyset key is (session_feedback.updated_at, id) at microsecond precision. */
export interface BadCaseRow extends KeysetRow, FailureFactsRow {
  feedbackId: string;
  sessionId: string;
  conversationId: string;
  channel: string;
  query: string;
  answer: string | null;
  comment: string | null;
  intent: string | null;
  selfEvaluation: SelfEvaluation | null;
  routeTrace: Record<string, unknown> | null;
  sessionCreatedAt: Date;
  markedAt: Date;
}

/** A case; its keyset key is (created_at, id) at microsecond precision. */
export interface CaseRow extends KeysetRow {
  id: string;
  sessionId: string | null;
  query: string;
  answer: string;
  faultCategory: FaultCategory;
  errorCode: string | null;
  sourceType: CaseSourceType;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The failure facts of a bad case's session `s` (docs/learning.md "Failure attribution"; read models in
 * docs/CONVENTIONS.md: `diagnosis_session`, `tool_invocation`, `coverage_decision`), with the decision of the coverage
 * evaluator version that counts; `bad_case_label` is this lib's own table.
 */
function badCaseFactsSql(evaluatorVersion: string): RawBuilder<FailureFactsRow> {
  return failureFactsSql('s', {
    coverageReason: sql<
      string | null
    >`(SELECT d.reason_code FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id AND d.evaluator_version = ${evaluatorVersion})`,
    labelIntent: sql<string | null>`(SELECT l.intent FROM bad_case_label l WHERE l.tenant_id = s.tenant_id AND l.session_id = s.id)`,
  });
}

export interface BadCaseFactsGroup extends FailureFactsRow {
  count: number;
}

/** Keyset keys keep microseconds (a JS Date would drop them and skip rows between pages). */
const BAD_CASE_KEYSET = typedKeyset('f.updated_at', 'f.id');
/** The columns of a listed bad case over `session_feedback f` and `diagnosis_session s`. */
function badCaseColumns(evaluatorVersion: string): RawBuilder<BadCaseRow> {
  return sql<BadCaseRow>`f.id AS "feedbackId", s.id AS "sessionId", s.conversation_id AS "conversationId", s.channel, s.query, s.answer, f.comment,
                s.intent, s.self_evaluation AS "selfEvaluation", s.route_trace AS "routeTrace", s.created_at AS "sessionCreatedAt",
                f.updated_at AS "markedAt", ${sql.join(BAD_CASE_KEYSET.cursor)}, ${badCaseFactsSql(evaluatorVersion)}`;
}
const CASE_KEYSET = typedKeyset('created_at', 'id');
const CASE_COLUMNS = sql`id, session_id AS "sessionId", query, answer, fault_category AS "faultCategory", error_code AS "errorCode",
  source_type AS "sourceType", created_at AS "createdAt", updated_at AS "updatedAt", ${sql.join(CASE_KEYSET.cursor)}`;

/** Attempts of one post; every failed one means another post on the same session applied meanwhile. */
const MAX_FEEDBACK_ATTEMPTS = 100;

/** Feedback and case-library SQL, on the typed data layer (docs/data-layer.md); every method is scoped by the tenant id it takes first. */
@Injectable()
export class FeedbackRepository {
  constructor(
    private readonly database: Database,
    private readonly sessionState: SessionFeedbackState,
  ) {}

  /**
   * Applies one feedback post in at most two statements and no explicit transaction (docs/hot-paths.md,
   * "Feedback"): one read of the session, its feedback row and its active case (one snapshot), the pure
   * state machine, then — when the state changes — one statement whose CTEs compare-and-set the session's
   * status and feedback (the sessions lib's fragment) and, only if that applied, upsert the feedback row
   * and activate or retract the case: all or nothing. Concurrent posts that decided from the same state
   * serialize on the session row lock the UPDATE takes; exactly one applies, the others see no row back
   * and decide again from what is now committed (a repeat is then `unchanged`). A repeat is one read.
   */
  async applyFeedback(tenantId: TenantId, sessionId: string, requested: FeedbackValue, comment: string | undefined): Promise<FeedbackOutcome> {
    for (let attempt = 0; attempt < MAX_FEEDBACK_ATTEMPTS; attempt++) {
      const outcome = await this.tryApplyFeedback(tenantId, sessionId, requested, comment);
      if (outcome !== 'conflict') return outcome;
    }
    // Each conflict means another post applied in between; this many in a row on one session is not feedback traffic.
    throw new Error(`feedback on session ${sessionId}: state changed under ${MAX_FEEDBACK_ATTEMPTS} attempts in a row`);
  }

  private async tryApplyFeedback(
    tenantId: TenantId,
    sessionId: string,
    requested: FeedbackValue,
    comment: string | undefined,
  ): Promise<FeedbackOutcome | 'conflict'> {
    const {
      rows: [row],
    } = await sql<SessionFeedbackRead & { status_before: 'SUCCESS' | 'FAILED' | null; active_case_id: string | null }>`
      WITH s AS (${this.sessionState.readCte(tenantId, sessionId)})
      SELECT s.status, s.feedback, s.answer, s.query,
             (SELECT f.status_before FROM session_feedback f WHERE f.tenant_id = ${tenantId} AND f.session_id = ${sessionId}) AS status_before,
             (SELECT c.id FROM case_library c WHERE c.tenant_id = ${tenantId} AND c.session_id = ${sessionId} AND c.retracted_at IS NULL) AS active_case_id
        FROM s`.execute(this.database.db);
    if (!row) return { kind: 'not_found' };
    const decision = decideFeedback(
      { status: row.status, feedback: row.feedback, statusBefore: row.status_before, hasAnswer: !!row.answer && row.answer.trim() !== '' },
      requested,
    );
    switch (decision.kind) {
      case 'reject':
        return { kind: 'rejected', reason: decision.reason };
      case 'unchanged': {
        if (comment !== undefined) {
          await this.database.db
            .updateTable('session_feedback')
            .set({ comment })
            .where('tenant_id', '=', tenantId)
            .where('session_id', '=', sessionId)
            .where('comment', 'is distinct from', comment)
            .execute();
        }
        return { kind: 'ok', changed: false, feedback: requested, status: row.status, caseId: row.active_case_id, caseEvent: null };
      }
      case 'apply': {
        let caseCte: RawBuilder<unknown>;
        switch (decision.caseAction) {
          case 'activate':
            caseCte = sql`INSERT INTO case_library (tenant_id, session_id, query, answer, fault_category, error_code, source_type)
                       SELECT ${tenantId}, ${sessionId}, ${row.query}, ${row.answer}, 'GENERAL', NULL, 'AUTO' FROM session_update
                       ON CONFLICT (tenant_id, session_id) DO UPDATE SET retracted_at = NULL, updated_at = now()
                       RETURNING id, (xmax = 0) AS inserted`;
            break;
          case 'retract':
            caseCte = sql`UPDATE case_library SET retracted_at = now(), updated_at = now()
                        WHERE tenant_id = ${tenantId} AND session_id = ${sessionId} AND source_type = 'AUTO' AND retracted_at IS NULL
                          AND EXISTS (SELECT 1 FROM session_update)
                       RETURNING id, false AS inserted`;
            break;
          case 'none':
            caseCte = sql`SELECT NULL::uuid AS id, NULL::boolean AS inserted WHERE false`;
            break;
        }
        const sessionUpdate = this.sessionState.compareAndSetCte({
          tenantId,
          sessionId,
          status: decision.status,
          feedback: requested,
          expectedStatus: row.status,
          expectedFeedback: row.feedback,
        });
        const {
          rows: [result],
        } = await sql<{ applied: boolean; case_id: string | null; inserted: boolean | null }>`
          WITH session_update AS (${sessionUpdate}),
          feedback_upsert AS (
            INSERT INTO session_feedback (tenant_id, session_id, feedback, comment, status_before)
            SELECT ${tenantId}, ${sessionId}, ${requested}, ${comment ?? null}, ${decision.statusBefore} FROM session_update
            ON CONFLICT (tenant_id, session_id) DO UPDATE
              SET feedback = EXCLUDED.feedback, comment = EXCLUDED.comment, status_before = EXCLUDED.status_before, updated_at = now()
            RETURNING id
          ), case_change AS (${caseCte})
          SELECT EXISTS (SELECT 1 FROM session_update) AS applied,
                 (SELECT id FROM case_change) AS case_id, (SELECT inserted FROM case_change) AS inserted`.execute(this.database.db);
        if (!result?.applied) return 'conflict';
        const changedCase = result.case_id ? { id: result.case_id, inserted: result.inserted === true } : null;
        const caseId = decision.caseAction === 'activate' ? (changedCase?.id ?? null) : null;
        const caseEvent = !changedCase ? null : decision.caseAction === 'retract' ? 'retracted' : changedCase.inserted ? 'created' : 'restored';
        return { kind: 'ok', changed: true, feedback: requested, status: decision.status, caseId, caseEvent };
      }
    }
  }

  /**
   * Sessions marked not_useful, newest verdict first, with their failure facts (coverage decision of `evaluatorVersion`);
   * with `status`, only those whose review has it (a case without a review record is OPEN).
   */
  async listBadCases(tenantId: TenantId, limit: number, evaluatorVersion: string, after?: KeysetCursor, status?: BadCaseReviewStatus): Promise<BadCaseRow[]> {
    const byStatus =
      status === undefined
        ? sql``
        : sql`AND COALESCE((SELECT l.status FROM bad_case_label l WHERE l.tenant_id = f.tenant_id AND l.session_id = f.session_id), 'OPEN') = ${status}`;
    const { rows } = await sql<BadCaseRow>`
      SELECT ${badCaseColumns(evaluatorVersion)}
        FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
       WHERE f.tenant_id = ${tenantId} AND f.feedback = 'not_useful' ${byStatus} AND ${BAD_CASE_KEYSET.after(after ?? null)}
       ORDER BY ${BAD_CASE_KEYSET.orderBy}
       LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }

  /** One bad case of the tenant (a session marked not_useful), as listed; null when it is none. */
  async findBadCase(tenantId: TenantId, sessionId: string, evaluatorVersion: string): Promise<BadCaseRow | null> {
    const { rows } = await sql<BadCaseRow>`
      SELECT ${badCaseColumns(evaluatorVersion)}
        FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
       WHERE f.tenant_id = ${tenantId} AND f.session_id = ${sessionId} AND f.feedback = 'not_useful'`.execute(this.database.db);
    return rows[0] ?? null;
  }

  /**
   * Failure facts of the bad cases marked in [fromTs, toTs) (`session_feedback.updated_at`; open ends allowed),
   * grouped on every fact column: Node receives one row per distinct combination. Reads the bad cases through
   * `idx_session_feedback_tenant_value_updated`, so its cost follows the bad cases of the window.
   */
  async badCaseFacts(tenantId: TenantId, evaluatorVersion: string, fromTs: string | null, toTs: string | null): Promise<BadCaseFactsGroup[]> {
    const { rows } = await sql<BadCaseFactsGroup>`
      SELECT ${badCaseFactsSql(evaluatorVersion)}, count(*)::int AS count
        FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
       WHERE f.tenant_id = ${tenantId} AND f.feedback = 'not_useful'
         AND (${fromTs}::timestamptz IS NULL OR f.updated_at >= ${fromTs}::timestamptz) AND (${toTs}::timestamptz IS NULL OR f.updated_at < ${toTs}::timestamptz)
       GROUP BY ${sql.raw(FAILURE_FACT_COLUMNS.map((_c, i) => String(i + 1)).join(', '))}`.execute(this.database.db);
    return rows;
  }

  /** Active (not retracted) cases, newest first, optionally filtered. */
  async listCases(
    tenantId: TenantId,
    filter: { faultCategory?: FaultCategory; sourceType?: CaseSourceType },
    limit: number,
    after?: KeysetCursor,
  ): Promise<CaseRow[]> {
    const { rows } = await sql<CaseRow>`
      SELECT ${CASE_COLUMNS} FROM case_library
       WHERE tenant_id = ${tenantId} AND retracted_at IS NULL
         ${filter.faultCategory ? sql`AND fault_category = ${filter.faultCategory}` : sql``}
         ${filter.sourceType ? sql`AND source_type = ${filter.sourceType}` : sql``}
         AND ${CASE_KEYSET.after(after ?? null)}
       ORDER BY ${CASE_KEYSET.orderBy} LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }

  async findCase(tenantId: TenantId, id: string): Promise<CaseRow | null> {
    const { rows } = await sql<CaseRow>`SELECT ${CASE_COLUMNS} FROM case_library WHERE tenant_id = ${tenantId} AND id = ${id} AND retracted_at IS NULL`.execute(
      this.database.db,
    );
    return rows[0] ?? null;
  }

  /** Inserts an operator's case in one transaction with `record`, its audit entry (docs/http-edge.md "Audit log"). */
  async insertManualCase(
    tenantId: TenantId,
    c: { query: string; answer: string; faultCategory: FaultCategory; errorCode: string | null },
    record: (tx: Db, row: CaseRow) => Promise<void>,
  ): Promise<CaseRow> {
    return this.database.transaction(async (tx) => {
      const { rows } = await sql<CaseRow>`
        INSERT INTO case_library (tenant_id, session_id, query, answer, fault_category, error_code, source_type)
        VALUES (${tenantId}, NULL, ${c.query}, ${c.answer}, ${c.faultCategory}, ${c.errorCode}, 'MANUAL') RETURNING ${CASE_COLUMNS}`.execute(tx);
      const row = rows[0]!;
      await record(tx, row);
      return row;
    });
  }
}
