import { DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum IntentErrorCode {
  RULE_NOT_FOUND = 'INTENT_RULE_NOT_FOUND',
  INVALID_RULE = 'INVALID_INTENT_RULE',
  INVALID_CONFIG = 'INVALID_INTENT_CONFIG',
  RULE_LIMIT_REACHED = 'INTENT_RULE_LIMIT_REACHED',
  INVALID_MESSAGE = 'INVALID_INTENT_MESSAGE',
  CONFIG_VERSION_MISMATCH = 'INTENT_CONFIG_VERSION_MISMATCH',
  RULE_SET_CHANGED = 'INTENT_RULE_SET_CHANGED',
}

export const INTENT_ERRORS: Record<IntentErrorCode, DomainErrorSpec> = {
  [IntentErrorCode.RULE_NOT_FOUND]: { status: 404, message: 'Intent rule not found' },
  [IntentErrorCode.INVALID_RULE]: { status: 400, message: 'Invalid intent rule' },
  [IntentErrorCode.INVALID_CONFIG]: { status: 400, message: 'Invalid intent config' },
  [IntentErrorCode.RULE_LIMIT_REACHED]: { status: 409, message: 'The tenant has reached the maximum number of intent rules' },
  [IntentErrorCode.INVALID_MESSAGE]: { status: 400, message: 'Invalid message' },
  [IntentErrorCode.CONFIG_VERSION_MISMATCH]: { status: 412, message: 'The intent config changed since the version named in If-Match' },
  [IntentErrorCode.RULE_SET_CHANGED]: { status: 409, message: 'The intent rule set kept changing during the write; retry it' },
};

export class IntentException extends DomainException<IntentErrorCode> {
  constructor(code: IntentErrorCode, detail?: string, details?: unknown) {
    super(code, INTENT_ERRORS[code], detail, details);
  }
}
