import { Injectable } from '@nestjs/common';

/** Placeholders (`$1`, `$2`, …) of the caller's statement that carry the values these fragments use. */
export interface SessionFeedbackReadParams {
  tenantId: string;
  sessionId: string;
}

export interface SessionFeedbackWriteParams extends SessionFeedbackReadParams {
  /** The status and feedback the caller read: the write only applies while they are still current. */
  expectedStatus: string;
  expectedFeedback: string;
  status: string;
  feedback: string;
}

/**
 * The sessions lib's part of a feedback post, owned here because `diagnosis_session` is this lib's
 * table (docs/hot-paths.md, "Feedback"). The feedback lib embeds these fragments as CTEs of its own
 * statement so that a post stays one round trip, but it never writes `diagnosis_session` itself:
 *
 * - `readCte` is the documented read model: the fields the feedback state machine decides from.
 * - `compareAndSetCte` sets status and feedback only while the row still holds the status and feedback
 *   the caller read (a compare-and-set under the row lock the UPDATE takes): of concurrent posts that
 *   decided from the same state exactly one applies; the others get no row back and decide again.
 *   Its output (`id`) is empty when the set did not apply, so the caller's other CTEs can depend on it.
 */
@Injectable()
export class SessionFeedbackState {
  /** Columns: `status`, `feedback`, `answer`, `query` of the tenant's session (no row when it is not the tenant's). */
  readCte(p: SessionFeedbackReadParams): string {
    return `SELECT s.status, s.feedback, s.answer, s.query FROM diagnosis_session s WHERE s.tenant_id = ${p.tenantId} AND s.id = ${p.sessionId}`;
  }

  /** Columns: `id` when the compare-and-set applied, no row otherwise. */
  compareAndSetCte(p: SessionFeedbackWriteParams): string {
    return `UPDATE diagnosis_session SET status = ${p.status}, feedback = ${p.feedback}, updated_at = now()
             WHERE tenant_id = ${p.tenantId} AND id = ${p.sessionId}
               AND status = ${p.expectedStatus} AND feedback IS NOT DISTINCT FROM ${p.expectedFeedback}
            RETURNING id`;
  }
}
