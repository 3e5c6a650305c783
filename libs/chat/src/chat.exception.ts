import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum ChatErrorCode {
  ConversationNotFound = 'CONVERSATION_NOT_FOUND',
  DatabaseUnavailable = 'DATABASE_UNAVAILABLE',
}

export function chatErrorSpec(code: ChatErrorCode): DomainErrorSpec {
  switch (code) {
    case ChatErrorCode.ConversationNotFound:
      return { status: 404, message: 'Conversation not found' };
    case ChatErrorCode.DatabaseUnavailable:
      return { status: 503, message: 'Database unavailable, retry shortly' };
    default:
      return assertNever(code, 'chat error code');
  }
}

export class ChatException extends DomainException<ChatErrorCode> {
  constructor(code: ChatErrorCode, detail?: string, details?: unknown) {
    const spec = chatErrorSpec(code);
    super(code, spec.status, detail ? `${spec.message}: ${detail}` : spec.message, details);
  }
}

const DB_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);

/**
 * Whether an error means the database is unreachable (connection refused/reset/terminated, server
 * starting or shutting down, too many connections) — the same classes the global filter maps to 503.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && DB_UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Cannot use a pool after calling end/i.test(e.message)) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
