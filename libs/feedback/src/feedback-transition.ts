import type { FeedbackValue, SessionStatus } from '@arbiter/sessions';

/** What the session and its feedback row say now (read under the session's row lock). */
export interface FeedbackState {
  status: SessionStatus;
  feedback: FeedbackValue | null;
  /** session_feedback.status_before, when a feedback row exists. */
  statusBefore: 'SUCCESS' | 'FAILED' | null;
  /** The session has a non-blank answer to keep as a case. */
  hasAnswer: boolean;
}

export type FeedbackRejection = 'SESSION_NOT_FINISHED' | 'NO_ANSWER_TO_KEEP';

export type FeedbackDecision =
  | { kind: 'reject'; reason: FeedbackRejection }
  /** Same feedback again: idempotent (only a new comment is stored). */
  | { kind: 'unchanged' }
  | {
      kind: 'apply';
      status: SessionStatus;
      statusBefore: 'SUCCESS' | 'FAILED';
      /** activate: create (or un-retract) the session's AUTO case; retract: hide it; none. */
      caseAction: 'activate' | 'retract' | 'none';
    };

/**
 * The feedback state machine (docs/spec/feedback.md), pure:
 * - PENDING/RUNNING sessions take no feedback (409);
 * - `useful` needs an answer to keep: a FAILED run (or a BAD_CASE that was FAILED) or a blank answer → 409;
 * - repeat → unchanged; `not_useful` → BAD_CASE (retracting the auto case after `useful`);
 * - `useful` → the status before BAD_CASE is restored and the auto case activated.
 */
export function decideFeedback(state: FeedbackState, requested: FeedbackValue): FeedbackDecision {
  if (state.status === 'PENDING' || state.status === 'RUNNING') return { kind: 'reject', reason: 'SESSION_NOT_FINISHED' };
  const base: 'SUCCESS' | 'FAILED' = state.status === 'BAD_CASE' ? (state.statusBefore ?? 'SUCCESS') : state.status;
  switch (requested) {
    case 'useful':
      if (base === 'FAILED' || !state.hasAnswer) return { kind: 'reject', reason: 'NO_ANSWER_TO_KEEP' };
      if (state.feedback === 'useful') return { kind: 'unchanged' };
      return { kind: 'apply', status: base, statusBefore: base, caseAction: 'activate' };
    case 'not_useful':
      if (state.feedback === 'not_useful') return { kind: 'unchanged' };
      return { kind: 'apply', status: 'BAD_CASE', statusBefore: base, caseAction: state.feedback === 'useful' ? 'retract' : 'none' };
  }
}
