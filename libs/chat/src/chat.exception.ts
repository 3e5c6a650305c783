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
    super(code, chatErrorSpec(code), detail, details);
  }
}
