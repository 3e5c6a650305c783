import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { PREVIOUS_SIGNATURE_HEADER } from '@arbiter/webhooks';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { addHandoffRule } from './handoff-rule.js';
import { op, until, verified, webhookCalls, type DeliveryBody, type WebhookBody } from './webhook-test-client.js';

/**
 * Issue 24 item 5: webhooks to the support desk, over HTTP, with a local receiver and the in-process job worker. The
 * cases that measure time (delivery within 5 s, a turn a slow receiver does not delay) are in webhook-latency.e2e-spec.ts.
 */
describe(`webhooks (e2e, ${process.env.TEST_DB ?? 'pglite'})`, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let acme: TestTenant;
  let other: TestTenant;
  const { createWebhook, deliveries, handoffTurn } = webhookCalls(() => t);

  const removeAll = async (tenant: TestTenant) => {
    const list = (await t.request({ method: 'GET', url: '/admin/webhooks', headers: op(tenant) })).json<{ items: WebhookBody[] }>().items;
    for (const w of list) expect((await t.request({ method: 'DELETE', url: `/admin/webhooks/${w.id}`, headers: op(tenant) })).statusCode).toBe(204);
  };

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await createTestApp({
      JOBS_ENABLED: 'true',
      // Polled every 200 ms (default 1 s): nothing here measures delivery time (webhook-latency.e2e-spec.ts measures it as
      // shipped), and an event that should not be delivered shows sooner in the waits before "nothing more arrived".
      JOBS_POLL_INTERVAL_MS: '200',
      WEBHOOK_DISPATCH_INTERVAL_MS: '200',
      JOBS_SCHEDULES: JSON.stringify({ 'coverage.backfill': 'off', 'sessions.repair': 'off', 'evaluation.retry-fallbacks': 'off' }),
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_BASE_MS: '300',
      WEBHOOK_DISABLE_AFTER_FAILURES: '4',
    });
    acme = await t.createTenant('webhooks-acme');
    other = await t.createTenant('webhooks-other');
    for (const tenant of [acme, other]) {
      await addHandoffRule(t, tenant);
    }
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });
  beforeEach(async () => {
    await removeAll(acme);
    await removeAll(other);
    receiver.received.length = 0;
    receiver.reply = () => ({ status: 200 });
  });

  describe('bad input: 400 naming why, nothing written', () => {
    it.each([
      ['http to a host not in WEBHOOK_ALLOWED_HOSTS', { url: 'http://desk.example.com/hook', events: ['handoff.requested'] }, /must use https/],
      ['a private address', { url: 'https://10.1.2.3/hook', events: ['handoff.requested'] }, /private address \(10\.1\.2\.3\)/],
      ['a link-local address (cloud metadata)', { url: 'https://169.254.169.254/latest', events: ['job.failed'] }, /linkLocal address/],
      ['a host resolving to loopback', { url: 'https://localhost:8443/hook', events: ['job.failed'] }, /loopback address/],
      ['a URL that is too long', { url: `https://desk.example.com/${'x'.repeat(2050)}`, events: ['job.failed'] }, /longer than 2048/],
      ['not a URL', { url: 'desk', events: ['job.failed'] }, /not an absolute URL/],
      ['an unknown event', { url: 'http://127.0.0.1:1/hook', events: ['chat.done'] }, /events must be among/],
      ['no event', { url: 'http://127.0.0.1:1/hook', events: [] }, /at least one event/],
    ])('%s', async (_name, payload, message) => {
      const res = await t.request({ method: 'POST', url: '/admin/webhooks', headers: op(acme), payload });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(message);
      expect((await t.db.pool.query('SELECT count(*)::int AS n FROM webhook_subscription')).rows[0]).toEqual({ n: 0 });
    });

    it('an update to a refused URL changes nothing', async () => {
      const hook = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
      const res = await t.request({
        method: 'PATCH',
        url: `/admin/webhooks/${hook.id}`,
        headers: op(acme),
        payload: { url: 'https://192.168.0.10/x', events: ['job.failed'] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/private address/);
      const after = (await t.request({ method: 'GET', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).json<WebhookBody>();
      expect(after).toMatchObject({ url: receiver.url, events: ['handoff.requested'] });
    });
  });

  it('create answers the secret once; the list and get never show it; auth is operator', async () => {
    const hook = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested', 'job.failed'], description: 'desk' });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(hook).toMatchObject({ url: receiver.url, events: ['handoff.requested', 'job.failed'], enabled: true });
    const list = await t.request({ method: 'GET', url: '/admin/webhooks', headers: op(acme) });
    expect(list.json<{ items: WebhookBody[] }>().items.map((w) => w.id)).toEqual([hook.id]);
    expect(list.body).not.toContain(hook.secret!);
    expect((await t.request({ method: 'GET', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).body).not.toContain(hook.secret!);
    expect((await t.request({ method: 'GET', url: '/admin/webhooks' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/admin/webhooks', headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
  });

  it('gets only events that happen after it was created, and only of its types', async () => {
    const before = await handoffTurn(acme);
    expect(before.shouldTransfer).toBe(true);
    const hook = await createWebhook(acme, { url: receiver.url, events: ['job.failed'] });
    await handoffTurn(acme);
    const handoff = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
    const after = await handoffTurn(acme);
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request!.body)).toMatchObject({ data: { sessionId: after.sessionId } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received).toHaveLength(1);
    expect(await deliveries(acme, hook.id)).toEqual([]);
    expect((await deliveries(acme, handoff.id)).length).toBe(1);
  });

  it('a receiver answering 500 is retried with backoff until it recovers; the turn never waits', async () => {
    const hook = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
    receiver.reply = (i) => (i < 2 ? { status: 500 } : { status: 204 });
    const turn = await handoffTurn(acme);
    const requests = await receiver.waitFor(3);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1); // the same event, byte for byte
    expect(requests.every((r) => verified(r, hook.secret!))).toBe(true);
    // Backoff: 300 ms, then 600 ms (WEBHOOK_RETRY_BASE_MS=300).
    expect(requests[1]!.receivedAt - requests[0]!.receivedAt).toBeGreaterThanOrEqual(250);
    expect(requests[2]!.receivedAt - requests[1]!.receivedAt).toBeGreaterThanOrEqual(550);
    const [delivery] = await until(
      () => deliveries(acme, hook.id),
      (items) => items[0]?.status === 'succeeded',
    );
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, responseStatus: 204, error: null });
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ data: { sessionId: turn.sessionId } });
    const sub = (await t.request({ method: 'GET', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).json<WebhookBody>();
    expect(sub.consecutiveFailures).toBe(0);
  });

  it('is disabled after repeated failures; re-enabled and redelivered, the event arrives', async () => {
    const hook = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
    receiver.reply = () => ({ status: 503 });
    await handoffTurn(acme);
    await receiver.waitFor(4);
    const disabled = await until(
      async () => (await t.request({ method: 'GET', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).json<WebhookBody>(),
      (w) => !w.enabled,
    );
    expect(disabled).toMatchObject({ enabled: false, consecutiveFailures: 4, disabledReason: expect.stringMatching(/4 failed attempts in a row/) });
    const [failed] = await until(
      () => deliveries(acme, hook.id),
      (items) => items[0]?.status === 'failed',
    );
    expect(failed).toMatchObject({
      responseStatus: 503,
      error: expect.stringMatching(/^HTTP 503: receiver failed \(webhook disabled after 4 failed attempts in a row\)$/),
    });
    // A disabled webhook gets no new events and cannot be redelivered to.
    await handoffTurn(acme);
    const refused = await t.request({ method: 'POST', url: `/admin/webhooks/${hook.id}/deliveries/${failed!.id}/redeliver`, headers: op(acme) });
    expect(refused.statusCode).toBe(409);

    receiver.reply = () => ({ status: 200 });
    const enabled = await t.request({ method: 'PATCH', url: `/admin/webhooks/${hook.id}`, headers: op(acme), payload: { enabled: true } });
    expect(enabled.json<WebhookBody>()).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
    const res = await t.request({ method: 'POST', url: `/admin/webhooks/${hook.id}/deliveries/${failed!.id}/redeliver`, headers: op(acme) });
    expect(res.statusCode).toBe(202);
    const again = res.json<DeliveryBody>();
    expect(again).toMatchObject({ redeliveryOf: failed!.id, eventId: failed!.eventId, status: 'pending' });
    const requests = await receiver.waitFor(5);
    expect(JSON.parse(requests[4]!.body)).toMatchObject({ id: failed!.eventId });
    expect(requests[4]!.headers['x-arbiter-delivery']).toBe(again.id);
    const log = await until(
      () => deliveries(acme, hook.id),
      (items) => items.find((d) => d.id === again.id)?.status === 'succeeded',
    );
    expect(log.map((d) => d.id)).toContain(failed!.id);
  });

  it('rotation: the new secret signs X-Arbiter-Signature, the old one X-Arbiter-Signature-Previous during the overlap', async () => {
    const hook = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
    const res = await t.request({ method: 'POST', url: `/admin/webhooks/${hook.id}/rotate`, headers: op(acme), payload: { overlapSeconds: 3600 } });
    expect(res.statusCode).toBe(200);
    const rotated = res.json<WebhookBody>();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt!) - Date.now()).toBeGreaterThan(3500_000);
    await handoffTurn(acme);
    const [request] = await receiver.waitFor(1);
    expect(verified(request!, rotated.secret!)).toBe(true);
    expect(verified(request!, hook.secret!)).toBe(false);
    expect(verified(request!, hook.secret!, PREVIOUS_SIGNATURE_HEADER)).toBe(true);

    // Overlap 0: the old secret stops signing at once.
    const ended = await t.request({ method: 'POST', url: `/admin/webhooks/${hook.id}/rotate`, headers: op(acme), payload: { overlapSeconds: 0 } });
    expect(ended.json<WebhookBody>().previousSecretExpiresAt).toBeNull();
    await handoffTurn(acme);
    const [, second] = await receiver.waitFor(2);
    expect(verified(second!, ended.json<WebhookBody>().secret!)).toBe(true);
    expect(second!.headers[PREVIOUS_SIGNATURE_HEADER]).toBeUndefined();
  });

  it("tenants never reach each other's webhooks or deliveries, and get only their own events", async () => {
    const mine = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
    await handoffTurn(other);
    await handoffTurn(acme);
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request!.body)).toMatchObject({ tenantId: acme.id });
    const [delivery] = await until(
      () => deliveries(acme, mine.id),
      (items) => items[0]?.status === 'succeeded',
    );
    const theirs = op(other);
    const attempts = [
      { method: 'GET' as const, url: `/admin/webhooks/${mine.id}` },
      { method: 'PATCH' as const, url: `/admin/webhooks/${mine.id}`, payload: { enabled: false } },
      { method: 'POST' as const, url: `/admin/webhooks/${mine.id}/rotate`, payload: {} },
      { method: 'GET' as const, url: `/admin/webhooks/${mine.id}/deliveries` },
      { method: 'POST' as const, url: `/admin/webhooks/${mine.id}/deliveries/${delivery!.id}/redeliver` },
      { method: 'DELETE' as const, url: `/admin/webhooks/${mine.id}` },
    ];
    for (const a of attempts) {
      const res = await t.request({ ...a, headers: theirs });
      expect([a.url, res.statusCode]).toEqual([a.url, 404]);
    }
    expect((await t.request({ method: 'GET', url: '/admin/webhooks', headers: theirs })).json<{ items: unknown[] }>().items).toEqual([]);
    const still = (await t.request({ method: 'GET', url: `/admin/webhooks/${mine.id}`, headers: op(acme) })).json<WebhookBody>();
    expect(still).toMatchObject({ enabled: true });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.received).toHaveLength(1);
  });

  it('update and delete', async () => {
    const hook = await createWebhook(acme, { url: receiver.url, events: ['handoff.requested'] });
    const res = await t.request({
      method: 'PATCH',
      url: `/admin/webhooks/${hook.id}`,
      headers: op(acme),
      payload: { events: ['job.failed', 'coverage.uncovered'], description: 'ops' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<WebhookBody>()).toMatchObject({ events: ['job.failed', 'coverage.uncovered'] });
    await handoffTurn(acme);
    expect((await t.request({ method: 'DELETE', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/admin/webhooks/${hook.id}`, headers: op(acme) })).statusCode).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.received).toHaveLength(0);
  });
});
