import { DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum LlmErrorCode {
  LLM_DISABLED = 'LLM_DISABLED',
  LLM_TIMEOUT = 'LLM_TIMEOUT',
  LLM_ABORTED = 'LLM_ABORTED',
  LLM_CALL_FAILED = 'LLM_CALL_FAILED',
  LLM_MISCONFIGURED = 'LLM_MISCONFIGURED',
  EMBEDDING_EMPTY_TEXT = 'EMBEDDING_EMPTY_TEXT',
  EMBEDDING_DIMENSION_MISMATCH = 'EMBEDDING_DIMENSION_MISMATCH',
  EMBEDDING_INVALID_VECTOR = 'EMBEDDING_INVALID_VECTOR',
  EMBEDDING_FAILED = 'EMBEDDING_FAILED',
}

export const LLM_ERRORS: Record<LlmErrorCode, DomainErrorSpec> = {
  [LlmErrorCode.LLM_DISABLED]: { status: 503, message: 'No LLM is configured (LLM_PROVIDER=none)' },
  [LlmErrorCode.LLM_TIMEOUT]: { status: 503, message: 'The LLM did not answer in time' },
  [LlmErrorCode.LLM_ABORTED]: { status: 503, message: 'The LLM call was cancelled' },
  [LlmErrorCode.LLM_CALL_FAILED]: { status: 503, message: 'The LLM call failed' },
  [LlmErrorCode.LLM_MISCONFIGURED]: { status: 503, message: 'The LLM/embedding configuration is invalid' },
  [LlmErrorCode.EMBEDDING_EMPTY_TEXT]: { status: 400, message: 'Cannot embed empty or whitespace-only text' },
  [LlmErrorCode.EMBEDDING_DIMENSION_MISMATCH]: { status: 503, message: 'The embedding server returned vectors of the wrong dimension' },
  [LlmErrorCode.EMBEDDING_INVALID_VECTOR]: { status: 503, message: 'The embedding server returned an unusable vector' },
  [LlmErrorCode.EMBEDDING_FAILED]: { status: 503, message: 'The embedding call failed' },
};

/** Errors of the LLM and embedding providers (`code` tells callers whether to fall back). */
export class LlmException extends DomainException<LlmErrorCode> {
  constructor(code: LlmErrorCode, detail?: string, details?: unknown, options?: { cause?: unknown }) {
    super(code, LLM_ERRORS[code], detail, details);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}
