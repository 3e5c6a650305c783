import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum CaseLibraryErrorCode {
  CaseNotFound = 'CASE_NOT_FOUND',
  EmptyPatch = 'CASE_EMPTY_PATCH',
}

export function caseLibraryErrorSpec(code: CaseLibraryErrorCode): DomainErrorSpec {
  switch (code) {
    case CaseLibraryErrorCode.CaseNotFound:
      return { status: 404, message: 'Case not found' };
    case CaseLibraryErrorCode.EmptyPatch:
      return { status: 400, message: 'Nothing to change: give query, answer, faultCategory and/or errorCode' };
    default:
      return assertNever(code, 'case library error code');
  }
}

export class CaseLibraryException extends DomainException<CaseLibraryErrorCode> {
  constructor(code: CaseLibraryErrorCode, detail?: string) {
    super(code, caseLibraryErrorSpec(code), detail);
  }
}
