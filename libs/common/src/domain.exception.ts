/** HTTP statuses a domain error may map to. */
export type DomainErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 503;

export interface DomainErrorSpec {
  status: DomainErrorStatus;
  message: string;
}

/**
 * Base of every module's typed exception. A module declares a code enum and an exhaustive
 * `Record<Code, DomainErrorSpec>`; the global filter turns it into the one error shape.
 */
export class DomainException<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    readonly status: DomainErrorStatus,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }

  static fromSpec<C extends string>(code: C, spec: DomainErrorSpec, detailMessage?: string, details?: unknown): DomainException<C> {
    return new DomainException(code, spec.status, detailMessage ? `${spec.message}: ${detailMessage}` : spec.message, details);
  }
}
