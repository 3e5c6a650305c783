import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum SessionsErrorCode {
  SessionNotFound = 'SESSION_NOT_FOUND',
  ConversationNotFound = 'CONVERSATION_NOT_FOUND',
  SessionNotRunning = 'SESSION_NOT_RUNNING',
  IdempotencyKeyReused = 'IDEMPOTENCY_KEY_REUSED',
  InvalidIdempotencyKey = 'INVALID_IDEMPOTENCY_KEY',
}

export function sessionsErrorSpec(code: SessionsErrorCode): DomainErrorSpec {
  switch (code) {
    case SessionsErrorCode.SessionNotFound:
      return { status: 404, message: 'Session not found' };
    case SessionsErrorCode.ConversationNotFound:
      return { status: 404, message: 'Conversation not found' };
    case SessionsErrorCode.SessionNotRunning:
      return { status: 409, message: 'Session is not running' };
    case SessionsErrorCode.IdempotencyKeyReused:
      return { status: 422, message: 'This Idempotency-Key was already used with a different request body' };
    case SessionsErrorCode.InvalidIdempotencyKey:
      return { status: 400, message: 'Idempotency-Key must be 1-200 printable ASCII characters without spaces' };
    default:
      return assertNever(code, 'sessions error code');
  }
}

export class SessionsException extends DomainException<SessionsErrorCode> {
  constructor(code: SessionsErrorCode, detail?: string) {
    super(code, sessionsErrorSpec(code), detail);
  }
}
