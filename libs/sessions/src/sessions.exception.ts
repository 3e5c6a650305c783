import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum SessionsErrorCode {
  SessionNotFound = 'SESSION_NOT_FOUND',
  ConversationNotFound = 'CONVERSATION_NOT_FOUND',
  SessionNotRunning = 'SESSION_NOT_RUNNING',
}

export function sessionsErrorSpec(code: SessionsErrorCode): DomainErrorSpec {
  switch (code) {
    case SessionsErrorCode.SessionNotFound:
      return { status: 404, message: 'Session not found' };
    case SessionsErrorCode.ConversationNotFound:
      return { status: 404, message: 'Conversation not found' };
    case SessionsErrorCode.SessionNotRunning:
      return { status: 409, message: 'Session is not running' };
    default:
      return assertNever(code, 'sessions error code');
  }
}

export class SessionsException extends DomainException<SessionsErrorCode> {
  constructor(code: SessionsErrorCode, detail?: string) {
    const spec = sessionsErrorSpec(code);
    super(code, spec.status, detail ? `${spec.message}: ${detail}` : spec.message);
  }
}
