import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum FeedbackErrorCode {
  SessionNotFound = 'FEEDBACK_SESSION_NOT_FOUND',
  SessionNotFinished = 'FEEDBACK_SESSION_NOT_FINISHED',
  NoAnswerToKeep = 'FEEDBACK_NO_ANSWER_TO_KEEP',
  CaseNotFound = 'CASE_NOT_FOUND',
  EmptyPatch = 'CASE_EMPTY_PATCH',
}

export function feedbackErrorSpec(code: FeedbackErrorCode): DomainErrorSpec {
  switch (code) {
    case FeedbackErrorCode.SessionNotFound:
      return { status: 404, message: 'Session not found' };
    case FeedbackErrorCode.SessionNotFinished:
      return { status: 409, message: 'The session has not finished yet (PENDING/RUNNING); feedback is taken once it has an outcome' };
    case FeedbackErrorCode.NoAnswerToKeep:
      return { status: 409, message: 'The session has no answer to keep (it FAILED or answered nothing), so it cannot be marked useful' };
    case FeedbackErrorCode.CaseNotFound:
      return { status: 404, message: 'Case not found' };
    case FeedbackErrorCode.EmptyPatch:
      return { status: 400, message: 'Nothing to change: give faultCategory and/or errorCode' };
    default:
      return assertNever(code, 'feedback error code');
  }
}

export class FeedbackException extends DomainException<FeedbackErrorCode> {
  constructor(code: FeedbackErrorCode, detail?: string) {
    super(code, feedbackErrorSpec(code), detail);
  }
}
