import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

/** Every error the coverage module raises. */
export enum CoverageErrorCode {
  /** The session is not SUCCESS/BAD_CASE (failed, pending, running): coverage is undefined for it. */
  SessionNotSucceeded = 'SESSION_NOT_SUCCEEDED',
  /** No evaluator is registered under the requested version. */
  UnknownEvaluatorVersion = 'UNKNOWN_EVALUATOR_VERSION',
  /** Two evaluators claim the same version (a wiring bug, caught at boot). */
  DuplicateEvaluatorVersion = 'DUPLICATE_EVALUATOR_VERSION',
  /** A stored reference has a score that is not a finite number (legacy / imported data). */
  MalformedReference = 'MALFORMED_REFERENCE',
  /** Report/gap/backfill window that is inconsistent (from after to, too long, bad date or time zone). */
  InvalidReportRange = 'INVALID_REPORT_RANGE',
}

/** Exhaustive code → HTTP status and message. */
export function coverageErrorSpec(code: CoverageErrorCode): DomainErrorSpec {
  switch (code) {
    case CoverageErrorCode.SessionNotSucceeded:
      return { status: 409, message: 'Only succeeded sessions (SUCCESS or BAD_CASE) can be evaluated for coverage' };
    case CoverageErrorCode.UnknownEvaluatorVersion:
      return { status: 400, message: 'Unknown coverage evaluator version' };
    case CoverageErrorCode.DuplicateEvaluatorVersion:
      return { status: 409, message: 'Coverage evaluator version registered twice' };
    case CoverageErrorCode.MalformedReference:
      return { status: 422, message: 'Session has a malformed reference (score is not a finite number)' };
    case CoverageErrorCode.InvalidReportRange:
      return { status: 400, message: 'Invalid range' };
    default:
      return assertNever(code, 'coverage error code');
  }
}

export class CoverageException extends DomainException<CoverageErrorCode> {
  constructor(code: CoverageErrorCode, detail?: string, details?: unknown) {
    super(code, coverageErrorSpec(code), detail, details);
  }
}
