import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { CaseLibraryRepository, type SessionCaseEvent } from '@arbiter/case-library';
import { Database, sql, type RawBuilder } from '@arbiter/database';
import { SessionFeedbackState, type SessionFeedbackRead, type FeedbackValue, type SessionStatus } from '@arbiter/sessions';
import { decideFeedback, type FeedbackRejection } from './feedback-transition.js';

export type FeedbackOutcome =
  | { kind: 'not_found' }
  | { kind: 'rejected'; reason: FeedbackRejection }
  | {
      kind: 'ok';
      changed: boolean;
      feedback: FeedbackValue;
      status: SessionStatus;
      caseId: string | null;
      caseEvent: SessionCaseEvent | null;
    };

/** Attempts of one post; every failed one means another post on the same session applied meanwhile. */
const MAX_FEEDBACK_ATTEMPTS = 100;

/**
 * Marker of a post's lost compare-and-set: the statement casts a text holding it to int, which fails at run time (never
 * at plan time: the text depends on the rows written) and so rolls the whole statement back.
 */
const STATE_CHANGED = 'feedback: the session changed under a concurrent post';

/**
 * Session feedback SQL (`session_feedback`), on the typed data layer (docs/data-layer.md); every method is scoped by the
 * tenant id it takes first. A post's statement embeds the owners' fragments for the other tables it reads and writes:
 * the sessions lib's `SessionFeedbackState` (`diagnosis_session`) and the case library's `CaseLibraryRepository`
 * (`case_library`).
 */
@Injectable()
export class FeedbackRepository {
  constructor(
    private readonly database: Database,
    private readonly sessionState: SessionFeedbackState,
    private readonly cases: CaseLibraryRepository,
  ) {}

  /**
   * Applies one feedback post in at most two statements and no explicit transaction (docs/hot-paths.md,
   * "Feedback"): one read of the session, its feedback row and its active case (one snapshot), the pure
   * state machine, then — when the state changes — one statement whose CTEs compare-and-set the session's
   * status and feedback (the sessions lib's fragment), upsert the feedback row and activate or retract the case, and
   * which fails as a whole when the compare-and-set did not apply: all or nothing. Concurrent posts that decided from
   * the same state serialize on the session row lock the UPDATE takes; exactly one applies, the others' statements fail
   * and they decide again from what is now committed (a repeat is then `unchanged`). A repeat is one read.
   * The writes do not select from the compare-and-set's output: on Citus an `INSERT … SELECT` that reads a CTE's
   * result makes the coordinator copy it to every worker (docs/SCALING.md "Hot paths on one shard").
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
             ${this.cases.activeSessionCaseSql(tenantId, sessionId)} AS active_case_id
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
        // The case library's fragment: a data-modifying CTE of this statement, which fails unless the compare-and-set applied.
        let caseCte: RawBuilder<unknown>;
        switch (decision.caseAction) {
          case 'activate':
            caseCte = this.cases.sessionCaseCte(tenantId, sessionId, { action: 'activate', query: row.query, answer: row.answer });
            break;
          case 'retract':
            caseCte = this.cases.sessionCaseCte(tenantId, sessionId, { action: 'retract' });
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
        const applied = sql`(SELECT count(*) FROM session_update)`;
        const statement = sql<{ applied: boolean; case_id: string | null; inserted: boolean | null }>`
          WITH session_update AS (${sessionUpdate}),
          feedback_upsert AS (
            INSERT INTO session_feedback (tenant_id, session_id, feedback, comment, status_before)
            VALUES (${tenantId}::uuid, ${sessionId}::uuid, ${requested}, ${comment ?? null}, ${decision.statusBefore})
            ON CONFLICT (tenant_id, session_id) DO UPDATE
              SET feedback = EXCLUDED.feedback, comment = EXCLUDED.comment, status_before = EXCLUDED.status_before, updated_at = EXCLUDED.updated_at
            RETURNING id
          ), case_change AS (${caseCte})
          -- A lost compare-and-set fails the statement here, which undoes its other writes.
          SELECT CASE WHEN ${applied} = 1 THEN true ELSE (${applied}::text || ${sql.lit(` ${STATE_CHANGED}`)})::int = 1 END AS applied,
                 (SELECT id FROM case_change) AS case_id, (SELECT inserted FROM case_change) AS inserted`;
        let result: { case_id: string | null; inserted: boolean | null } | undefined;
        try {
          result = (await statement.execute(this.database.db)).rows[0];
        } catch (error) {
          if (error instanceof Error && error.message.includes(STATE_CHANGED)) return 'conflict';
          throw error;
        }
        const changedCase = result?.case_id ? { id: result.case_id, inserted: result.inserted === true } : null;
        const caseId = decision.caseAction === 'activate' ? (changedCase?.id ?? null) : null;
        const caseEvent = !changedCase ? null : decision.caseAction === 'retract' ? 'retracted' : changedCase.inserted ? 'created' : 'restored';
        return { kind: 'ok', changed: true, feedback: requested, status: decision.status, caseId, caseEvent };
      }
    }
  }
}
