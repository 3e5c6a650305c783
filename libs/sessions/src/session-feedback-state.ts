import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { sql, type RawBuilder } from '@arbiter/database';
import type { FeedbackValue, SessionStatus } from './session.types.js';

export interface SessionFeedbackRead {
  status: SessionStatus;
  feedback: FeedbackValue | null;
  answer: string | null;
  query: string;
}

export interface SessionFeedbackWrite {
  tenantId: TenantId;
  sessionId: string;
  /** The status and feedback the caller read: the write only applies while they are still current. */
  expectedStatus: SessionStatus;
  expectedFeedback: FeedbackValue | null;
  status: SessionStatus;
  feedback: FeedbackValue;
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
  readCte(tenantId: TenantId, sessionId: string): RawBuilder<SessionFeedbackRead> {
    return sql<SessionFeedbackRead>`SELECT s.status, s.feedback, s.answer, s.query FROM diagnosis_session s WHERE s.tenant_id = ${tenantId} AND s.id = ${sessionId}`;
  }

  /** Columns: `id` when the compare-and-set applied, no row otherwise. */
  compareAndSetCte(w: SessionFeedbackWrite): RawBuilder<{ id: string }> {
    return sql<{ id: string }>`UPDATE diagnosis_session SET status = ${w.status}, feedback = ${w.feedback}, updated_at = now()
             WHERE tenant_id = ${w.tenantId} AND id = ${w.sessionId}
               AND status = ${w.expectedStatus} AND feedback IS NOT DISTINCT FROM ${w.expectedFeedback}::varchar
            RETURNING id`;
  }
}
