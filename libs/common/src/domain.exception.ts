/** HTTP statuses a domain error may map to. */
export type DomainErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 412 | 413 | 415 | 422 | 429 | 503;

export interface DomainErrorSpec {
  status: DomainErrorStatus;
  message: string;
}

/**
 * Base of every module's typed exception. A module declares a code enum and an exhaustive
 * code → {@link DomainErrorSpec} map; its exception passes the code's spec and an optional detail:
 * `super(code, xErrorSpec(code), detail, details)` → message "<spec message>: <detail>".
 * The global filter turns it into the one error shape. (A bare status and message is for the few
 * errors of the shared code that belong to no module, e.g. a malformed cursor.)
 */
export class DomainException<Code extends string = string> extends Error {
  readonly status: DomainErrorStatus;

  constructor(code: Code, spec: DomainErrorSpec, detail?: string, details?: unknown);
  constructor(code: Code, status: DomainErrorStatus, message: string, details?: unknown);
  constructor(
    readonly code: Code,
    specOrStatus: DomainErrorSpec | DomainErrorStatus,
    detailOrMessage?: string,
    readonly details?: unknown,
  ) {
    const spec = typeof specOrStatus === 'number' ? null : specOrStatus;
    super(spec ? (detailOrMessage ? `${spec.message}: ${detailOrMessage}` : spec.message) : (detailOrMessage ?? ''));
    this.status = spec ? spec.status : (specOrStatus as DomainErrorStatus);
    this.name = new.target.name;
  }
}
