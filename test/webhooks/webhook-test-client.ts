import { expect } from '@jest/globals';
import { pollUntil } from '@arbiter/testing';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook } from '@arbiter/webhooks';
import type { TestApp, TestTenant } from '../support/test-app.js';
import type { ReceivedWebhook } from '../support/webhook-receiver.js';

/** What the webhook e2e files (webhooks, webhook-latency) share: the API's bodies as they read them, and its calls. */
export interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  previousSecretExpiresAt: string | null;
  secret?: string;
}

export interface DeliveryBody {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  redeliveryOf: string | null;
}

/** Verifies a received request as an integrator would (docs/webhooks.md "Verifying a signature"). */
export function verified(request: ReceivedWebhook, secret: string, header = SIGNATURE_HEADER): boolean {
  return verifyWebhook(
    secret,
    { timestamp: request.headers[TIMESTAMP_HEADER] as string, signature: request.headers[header] as string },
    request.body,
    Math.floor(Date.now() / 1000),
  );
}

/** Polls `read` until `done` holds (docs/CONVENTIONS.md: one poll-until, `pollUntil` of @arbiter/testing). */
export const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> =>
  (await pollUntil('condition', read, done, { deadlineMs: timeoutMs, intervalMs: 100 })).value;

export const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });

/** The calls of the webhook API and a hand-off chat turn, on the app `app()` returns when called. */
export function webhookCalls(app: () => TestApp) {
  return {
    async createWebhook(tenant: TestTenant, payload: Record<string, unknown>): Promise<WebhookBody> {
      const res = await app().request({ method: 'POST', url: '/admin/webhooks', headers: op(tenant), payload });
      expect(res.statusCode).toBe(201);
      return res.json<WebhookBody>();
    },
    async deliveries(tenant: TestTenant, id: string): Promise<DeliveryBody[]> {
      const res = await app().request({ method: 'GET', url: `/admin/webhooks/${id}/deliveries`, headers: op(tenant) });
      expect(res.statusCode).toBe(200);
      return res.json<{ items: DeliveryBody[] }>().items;
    },
    /** A turn the hand-off rule (handoff-rule.ts) sends to the support desk, with how long it took. */
    async handoffTurn(tenant: TestTenant, message = '我要转人工', conversationId?: string) {
      const started = performance.now();
      const res = await app().request({
        method: 'POST',
        url: '/ai/chat',
        headers: { 'x-api-key': tenant.clientKey },
        payload: { message, ...(conversationId ? { conversationId } : {}) },
      });
      const ms = performance.now() - started;
      expect(res.statusCode).toBe(200);
      const body = res.json<{ sessionId: string; conversationId: string; shouldTransfer: boolean }>();
      return { ...body, ms, answeredAt: Date.now() };
    },
  };
}
