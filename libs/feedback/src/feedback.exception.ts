import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum FeedbackErrorCode {
  SessionNotFound = 'FEEDBACK_SESSION_NOT_FOUND',
  SessionNotFinished = 'FEEDBACK_SESSION_NOT_FINISHED',
  NoAnswerToKeep = 'FEEDBACK_NO_ANSWER_TO_KEEP',
  BadCaseNotFound = 'BAD_CASE_NOT_FOUND',
  NoRuleForIntent = 'BAD_CASE_NO_RULE_FOR_INTENT',
  ExampleNotAcceptable = 'BAD_CASE_EXAMPLE_NOT_ACCEPTABLE',
  AlreadyAnExample = 'BAD_CASE_ALREADY_AN_EXAMPLE',
  InvalidRange = 'BAD_CASE_INVALID_RANGE',
  EmptyReview = 'BAD_CASE_EMPTY_REVIEW',
}

export function feedbackErrorSpec(code: FeedbackErrorCode): DomainErrorSpec {
  switch (code) {
    case FeedbackErrorCode.SessionNotFound:
      return { status: 404, message: 'Session not found' };
    case FeedbackErrorCode.SessionNotFinished:
      return { status: 409, message: 'The session has not finished yet (PENDING/RUNNING); feedback is taken once it has an outcome' };
    case FeedbackErrorCode.NoAnswerToKeep:
      return { status: 409, message: 'The session has no answer to keep (it FAILED or answered nothing), so it cannot be marked useful' };
    case FeedbackErrorCode.BadCaseNotFound:
      return { status: 404, message: 'Bad case not found (no session of this tenant marked not_useful with this id)' };
    case FeedbackErrorCode.NoRuleForIntent:
      return { status: 400, message: 'The intent has no enabled rule to take the example (create or enable one first)' };
    case FeedbackErrorCode.ExampleNotAcceptable:
      return { status: 400, message: "The bad case's question cannot become a semantic example of the rule" };
    case FeedbackErrorCode.AlreadyAnExample:
      return { status: 409, message: "The bad case's question is already a semantic example of the intent's rule" };
    case FeedbackErrorCode.InvalidRange:
      return { status: 400, message: 'from must be before to' };
    case FeedbackErrorCode.EmptyReview:
      return { status: 400, message: 'Nothing to change: give intent, documentId, note and/or status' };
    default:
      return assertNever(code, 'feedback error code');
  }
}

export class FeedbackException extends DomainException<FeedbackErrorCode> {
  constructor(code: FeedbackErrorCode, detail?: string) {
    super(code, feedbackErrorSpec(code), detail);
  }
}
