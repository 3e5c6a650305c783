import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

/** Every error the monitoring module raises. */
export enum MonitoringErrorCode {
  /** `from` after `to`, or a stats window longer than MAX_STATS_DAYS. */
  InvalidRange = 'MONITORING_INVALID_RANGE',
  /** No such conversation in this tenant (another tenant's id included: never 403, never data). */
  ConversationNotFound = 'MONITORING_CONVERSATION_NOT_FOUND',
}

/** Exhaustive code → HTTP status and message. */
export function monitoringErrorSpec(code: MonitoringErrorCode): DomainErrorSpec {
  switch (code) {
    case MonitoringErrorCode.InvalidRange:
      return { status: 400, message: 'Invalid time window' };
    case MonitoringErrorCode.ConversationNotFound:
      return { status: 404, message: 'Conversation not found' };
    default:
      return assertNever(code, 'monitoring error code');
  }
}

export class MonitoringException extends DomainException<MonitoringErrorCode> {
  constructor(code: MonitoringErrorCode, detail?: string, details?: unknown) {
    super(code, monitoringErrorSpec(code), detail, details);
  }
}
