import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

/** What the HTTP edge refuses before a request reaches its route (docs/http-edge.md). */
export enum HttpEdgeErrorCode {
  BodyTooLarge = 'BODY_TOO_LARGE',
  BodyTimeout = 'BODY_TIMEOUT',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
}

export function httpEdgeErrorSpec(code: HttpEdgeErrorCode): DomainErrorSpec {
  switch (code) {
    case HttpEdgeErrorCode.BodyTooLarge:
      return { status: 413, message: 'Request body is larger than the allowed limit' };
    case HttpEdgeErrorCode.BodyTimeout:
      return { status: 408, message: 'Request body did not arrive in time' };
    case HttpEdgeErrorCode.UnsupportedMediaType:
      return { status: 415, message: 'Unsupported content type' };
    default:
      return assertNever(code, 'http edge error code');
  }
}

export class HttpEdgeException extends DomainException<HttpEdgeErrorCode> {
  constructor(code: HttpEdgeErrorCode, detail?: string, details?: unknown) {
    super(code, httpEdgeErrorSpec(code), detail, details);
  }
}
