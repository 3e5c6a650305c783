import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum JobsErrorCode {
  RunNotFound = 'JOB_RUN_NOT_FOUND',
  UnknownJob = 'JOB_UNKNOWN',
}

export function jobsErrorSpec(code: JobsErrorCode): DomainErrorSpec {
  switch (code) {
    case JobsErrorCode.RunNotFound:
      return { status: 404, message: 'Job run not found' };
    case JobsErrorCode.UnknownJob:
      return { status: 400, message: 'Unknown job' };
    default:
      return assertNever(code, 'jobs error code');
  }
}

export class JobsException extends DomainException<JobsErrorCode> {
  constructor(code: JobsErrorCode, detail?: string) {
    super(code, jobsErrorSpec(code), detail);
  }
}
