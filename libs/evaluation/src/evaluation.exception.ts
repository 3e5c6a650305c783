import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum EvaluationErrorCode {
  SessionNotFinished = 'EVALUATION_SESSION_NOT_FINISHED',
}

export function evaluationErrorSpec(code: EvaluationErrorCode): DomainErrorSpec {
  switch (code) {
    case EvaluationErrorCode.SessionNotFinished:
      return { status: 409, message: 'The session has not finished yet (PENDING/RUNNING); it is evaluated once it has an outcome' };
    default:
      return assertNever(code, 'evaluation error code');
  }
}

export class EvaluationException extends DomainException<EvaluationErrorCode> {
  constructor(code: EvaluationErrorCode, detail?: string) {
    super(code, evaluationErrorSpec(code), detail);
  }
}
