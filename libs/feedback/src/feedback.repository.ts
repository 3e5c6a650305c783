import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Keyset, type KeysetCursor, type KeysetRow, type TenantId } from '@arbiter/common';
import {
  FAILURE_FACT_COLUMNS,
  SessionFeedbackState,
  failureFactsSqlText,
  type FailureFactsRow,
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
 * docs/CONVENTIONS.md: `diagnosis_session`, `tool_invocation`, `coverage_decision`). `$3` = the coverage evaluator
 * version whose decision counts; `bad_case_label` is this lib's own table.
 */
const BAD_CASE_FACTS = failureFactsSqlText('s', {
  coverageReasonSql: `(SELECT d.reason_code FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id AND d.evaluator_version = $3)`,
  labelIntentSql: `(SELECT l.intent FROM bad_case_label l WHERE l.tenant_id = s.tenant_id AND l.session_id = s.id)`,
});

export interface BadCaseFactsGroup extends FailureFactsRow {
  count: number;
}

/** Keyset keys keep microseconds (a JS Date would drop them and skip rows between pages). */
const BAD_CASE_KEYSET = new Keyset('f.updated_at', 'f.id');
/** The columns of a listed bad case over `session_feedback f` and `diagnosis_session s` (`$3` = evaluator version). */
const BAD_CASE_COLUMNS = `f.id AS "feedbackId", s.id AS "sessionId", s.conversation_id AS "conversationId", s.channel, s.query, s.answer, f.comment,
                s.intent, s.self_evaluation AS "selfEvaluation", s.route_trace AS "routeTrace", s.created_at AS "sessionCreatedAt",
                f.updated_at AS "markedAt", ${BAD_CASE_KEYSET.columns}, ${BAD_CASE_FACTS}`;
const CASE_KEYSET = new Keyset('created_at', 'id');
const CASE_COLUMNS = `id, session_id AS "sessionId", query, answer, fault_category AS "faultCategory", error_code AS "errorCode",
  source_type AS "sourceType", created_at AS "createdAt", updated_at AS "updatedAt", ${CASE_KEYSET.columns}`;

/** Attempts of one post; every failed one means another post on the same session applied meanwhile. */
const MAX_FEEDBACK_ATTEMPTS = 100;

/** Rows of `em.query`: TypeORM returns `[rows, affected]` for UPDATE/DELETE and `rows` otherwise. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** Feedback and case-library SQL; every method is scoped by the tenant id it takes first. */
@Injectable()
export class FeedbackRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
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
    const [row] = rowsOf<{
      status: SessionStatus;
      feedback: FeedbackValue | null;
      answer: string | null;
      query: string;
      status_before: 'SUCCESS' | 'FAILED' | null;
      active_case_id: string | null;
    }>(
      await this.dataSource.query(
        `WITH s AS (${this.sessionState.readCte({ tenantId: '$1', sessionId: '$2' })})
         SELECT s.status, s.feedback, s.answer, s.query,
                (SELECT f.status_before FROM session_feedback f WHERE f.tenant_id = $1 AND f.session_id = $2) AS status_before,
                (SELECT c.id FROM case_library c WHERE c.tenant_id = $1 AND c.session_id = $2 AND c.retracted_at IS NULL) AS active_case_id
           FROM s`,
        [tenantId, sessionId],
      ),
    );
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
          await this.dataSource.query(`UPDATE session_feedback SET comment = $3 WHERE tenant_id = $1 AND session_id = $2 AND comment IS DISTINCT FROM $3`, [
            tenantId,
            sessionId,
            comment,
          ]);
        }
        return { kind: 'ok', changed: false, feedback: requested, status: row.status, caseId: row.active_case_id, caseEvent: null };
      }
      case 'apply': {
        // $1 tenant, $2 session, $3 new status, $4 requested, $5 comment, $6 status_before, $7/$8 what was read.
        const params: unknown[] = [tenantId, sessionId, decision.status, requested, comment ?? null, decision.statusBefore, row.status, row.feedback];
        let caseCte: string;
        switch (decision.caseAction) {
          case 'activate':
            params.push(row.query, row.answer);
            caseCte = `INSERT INTO case_library (tenant_id, session_id, query, answer, fault_category, error_code, source_type)
                       SELECT $1, $2, $9, $10, 'GENERAL', NULL, 'AUTO' FROM session_update
                       ON CONFLICT (tenant_id, session_id) DO UPDATE SET retracted_at = NULL, updated_at = now()
                       RETURNING id, (xmax = 0) AS inserted`;
            break;
          case 'retract':
            caseCte = `UPDATE case_library SET retracted_at = now(), updated_at = now()
                        WHERE tenant_id = $1 AND session_id = $2 AND source_type = 'AUTO' AND retracted_at IS NULL
                          AND EXISTS (SELECT 1 FROM session_update)
                       RETURNING id, false AS inserted`;
            break;
          case 'none':
            caseCte = `SELECT NULL::uuid AS id, NULL::boolean AS inserted WHERE false`;
            break;
        }
        const sessionUpdate = this.sessionState.compareAndSetCte({
          tenantId: '$1',
          sessionId: '$2',
          status: '$3',
          feedback: '$4',
          expectedStatus: '$7',
          expectedFeedback: '$8::varchar',
        });
        const [result] = rowsOf<{ applied: boolean; case_id: string | null; inserted: boolean | null }>(
          await this.dataSource.query(
            `WITH session_update AS (${sessionUpdate}),
             feedback_upsert AS (
               INSERT INTO session_feedback (tenant_id, session_id, feedback, comment, status_before)
               SELECT $1, $2, $4, $5, $6 FROM session_update
               ON CONFLICT (tenant_id, session_id) DO UPDATE
                 SET feedback = EXCLUDED.feedback, comment = EXCLUDED.comment, status_before = EXCLUDED.status_before, updated_at = now()
               RETURNING id
             ), case_change AS (${caseCte})
             SELECT EXISTS (SELECT 1 FROM session_update) AS applied,
                    (SELECT id FROM case_change) AS case_id, (SELECT inserted FROM case_change) AS inserted`,
            params,
          ),
        );
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
    const params: unknown[] = [tenantId, limit, evaluatorVersion];
    const where = [`f.tenant_id = $1`, `f.feedback = 'not_useful'`];
    if (status !== undefined) {
      params.push(status);
      where.push(
        `COALESCE((SELECT l.status FROM bad_case_label l WHERE l.tenant_id = f.tenant_id AND l.session_id = f.session_id), 'OPEN') = $${params.length}`,
      );
    }
    where.push(BAD_CASE_KEYSET.where(params, after ?? null));
    return rowsOf<BadCaseRow>(
      await this.dataSource.query(
        `SELECT ${BAD_CASE_COLUMNS}
           FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
          WHERE ${where.join(' AND ')}
          ORDER BY ${BAD_CASE_KEYSET.orderBy}
          LIMIT $2`,
        params,
      ),
    );
  }

  /** One bad case of the tenant (a session marked not_useful), as listed; null when it is none. */
  async findBadCase(tenantId: TenantId, sessionId: string, evaluatorVersion: string): Promise<BadCaseRow | null> {
    const [row] = rowsOf<BadCaseRow>(
      await this.dataSource.query(
        `SELECT ${BAD_CASE_COLUMNS}
           FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
          WHERE f.tenant_id = $1 AND f.session_id = $2 AND f.feedback = 'not_useful'`,
        [tenantId, sessionId, evaluatorVersion],
      ),
    );
    return row ?? null;
  }

  /**
   * Failure facts of the bad cases marked in [fromTs, toTs) (`session_feedback.updated_at`; open ends allowed),
   * grouped on every fact column: Node receives one row per distinct combination. Reads the bad cases through
   * `idx_session_feedback_tenant_value_updated`, so its cost follows the bad cases of the window.
   */
  async badCaseFacts(tenantId: TenantId, evaluatorVersion: string, fromTs: string | null, toTs: string | null): Promise<BadCaseFactsGroup[]> {
    return rowsOf<BadCaseFactsGroup>(
      await this.dataSource.query(
        `SELECT ${BAD_CASE_FACTS}, count(*)::int AS count
           FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
          WHERE f.tenant_id = $1 AND f.feedback = 'not_useful'
            AND ($2::timestamptz IS NULL OR f.updated_at >= $2::timestamptz) AND ($4::timestamptz IS NULL OR f.updated_at < $4::timestamptz)
          GROUP BY ${FAILURE_FACT_COLUMNS.map((_c, i) => String(i + 1)).join(', ')}`,
        [tenantId, fromTs, evaluatorVersion, toTs],
      ),
    );
  }

  /** Active (not retracted) cases, newest first, optionally filtered. */
  async listCases(
    tenantId: TenantId,
    filter: { faultCategory?: FaultCategory; sourceType?: CaseSourceType },
    limit: number,
    after?: KeysetCursor,
  ): Promise<CaseRow[]> {
    const params: unknown[] = [tenantId, limit];
    const where = ['tenant_id = $1', 'retracted_at IS NULL'];
    if (filter.faultCategory) {
      params.push(filter.faultCategory);
      where.push(`fault_category = $${params.length}`);
    }
    if (filter.sourceType) {
      params.push(filter.sourceType);
      where.push(`source_type = $${params.length}`);
    }
    where.push(CASE_KEYSET.where(params, after ?? null));
    return rowsOf<CaseRow>(
      await this.dataSource.query(`SELECT ${CASE_COLUMNS} FROM case_library WHERE ${where.join(' AND ')} ORDER BY ${CASE_KEYSET.orderBy} LIMIT $2`, params),
    );
  }

  async findCase(tenantId: TenantId, id: string): Promise<CaseRow | null> {
    const [row] = rowsOf<CaseRow>(
      await this.dataSource.query(`SELECT ${CASE_COLUMNS} FROM case_library WHERE tenant_id = $1 AND id = $2 AND retracted_at IS NULL`, [tenantId, id]),
    );
    return row ?? null;
  }

  /** Inserts an operator's case in one transaction with `record`, its audit entry (docs/http-edge.md "Audit log"). */
  async insertManualCase(
    tenantId: TenantId,
    c: { query: string; answer: string; faultCategory: FaultCategory; errorCode: string | null },
    record: (em: EntityManager, row: CaseRow) => Promise<void>,
  ): Promise<CaseRow> {
    return this.dataSource.transaction(async (em) => {
      const [row] = rowsOf<CaseRow>(
        await em.query(
          `INSERT INTO case_library (tenant_id, session_id, query, answer, fault_category, error_code, source_type)
           VALUES ($1, NULL, $2, $3, $4, $5, 'MANUAL') RETURNING ${CASE_COLUMNS}`,
          [tenantId, c.query, c.answer, c.faultCategory, c.errorCode],
        ),
      );
      await record(em, row!);
      return row!;
    });
  }
}
