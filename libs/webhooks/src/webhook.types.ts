/** The events a subscription can take (docs/webhooks.md "Events"); the migration's CHECKs list the same. */
export const WEBHOOK_EVENT_TYPES = ['handoff.requested', 'feedback.bad_case', 'coverage.uncovered', 'job.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookSubscription {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  /** When the previous secret stops signing (a rotation's overlap window); null when none is open. */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A subscription with its secrets, for signing only (never returned by the API). */
export interface SigningSubscription extends WebhookSubscription {
  secret: string;
  /** The previous secret while its overlap window is open, else null. */
  previousSecret: string | null;
}

export interface WebhookDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: WebhookEventType;
  redeliveryOf: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  responseStatus: number | null;
  responseMs: number | null;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface WebhookEventRow {
  id: string;
  tenantId: string;
  type: WebhookEventType;
  payload: unknown;
  createdAt: Date;
}

/** The JSON body of every delivery (docs/webhooks.md "Payloads"); the same bytes on every attempt of an event. */
export function webhookBody(event: WebhookEventRow): string {
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), tenantId: event.tenantId, data: event.payload });
}
