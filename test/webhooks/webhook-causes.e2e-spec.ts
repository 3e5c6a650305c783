import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook, WebhookDispatcher } from '@arbiter/webhooks';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

interface Envelope {
  id: string;
  type: string;
  tenantId: string;
  data: Record<string, unknown>;
}

/**
 * The four causes through the libs' own code paths (docs/webhooks.md "Events"): a chat turn handing off, a chat turn
 * whose coverage decision is uncovered, a bad-case feedback, a job run that gives up. The job worker is off here
 * (createTestApp), so the test dispatches and runs the queue itself: a subscription created after the events gets none.
 */
describe(`webhook events from their causes (e2e, ${process.env.TEST_DB ?? 'pglite'})`, () => {
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let tenant: TestTenant;
  let jobs: JobsService;

  beforeAll(async () => {
    await receiver.start();
    t = await createTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    tenant = await t.createTenant('webhook-causes');
    jobs = t.app.get(JobsService);
    jobs.defineAdHoc({
      name: 'test.always-fails',
      maxAttempts: 1,
      handler: () => Promise.reject(new Error('disk on fire')),
    });
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  it('writes each event in its cause, delivers it signed to the subscriptions that existed, and to no later one', async () => {
    const op = { 'x-api-key': tenant.operatorKey };
    const created = await t.request({
      method: 'POST',
      url: '/admin/webhooks',
      headers: op,
      payload: { url: receiver.url, events: ['handoff.requested', 'feedback.bad_case', 'coverage.uncovered', 'job.failed'] },
    });
    expect(created.statusCode).toBe(201);
    const hook = created.json<{ id: string; secret: string }>();

    const chat = await t.request({
      method: 'POST',
      url: '/ai/chat',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { message: '机械臂可以在水下使用吗' },
    });
    expect(chat.statusCode).toBe(200);
    const turn = chat.json<{ sessionId: string; shouldTransfer: boolean; reply: string }>();
    expect(turn.shouldTransfer).toBe(true);
    const types = async () =>
      (await t.db.pool.query<{ type: string }>(`SELECT type FROM webhook_event WHERE tenant_id = $1 ORDER BY type`, [tenant.id])).rows.map((r) => r.type);
    // The not-found exit hands off, and its coverage decision (in the same finish statement) is uncovered.
    expect(await types()).toEqual(['coverage.uncovered', 'handoff.requested']);

    const feedback = await t.request({
      method: 'POST',
      url: '/api/feedback',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { sessionId: turn.sessionId, feedback: 'not_useful', comment: 'it can, IP68 model' },
    });
    expect(feedback.statusCode).toBe(200);
    await jobs.enqueue(asTenantId(tenant.id), 'test.always-fails', {});
    await jobs.runPending();
    expect(await types()).toEqual(['coverage.uncovered', 'feedback.bad_case', 'handoff.requested', 'job.failed']);

    // Created after the four events happened: it gets none of them.
    const later = await t.request({
      method: 'POST',
      url: '/admin/webhooks',
      headers: op,
      payload: { url: `${receiver.url}/later`, events: ['handoff.requested', 'job.failed'] },
    });
    expect(later.statusCode).toBe(201);
    const laterId = later.json<{ id: string }>().id;
    expect(await t.app.get(WebhookDispatcher).dispatchPending()).toBe(4);
    await jobs.runPending();

    const requests = await receiver.waitFor(4).catch(async (error: unknown) => {
      // Say where the missing deliveries are (their attempts and runs), not only that they did not arrive.
      const deliveries = await t.db.pool.query(
        `SELECT d.status, d.attempts, d.error, (SELECT json_agg(json_build_object('status', r.status, 'attempts', r.attempts, 'runAfter', r.run_after, 'error', r.error))
           FROM job_run r WHERE r.tenant_id = d.tenant_id AND r.payload->>'deliveryId' = d.id::text) AS runs
           FROM webhook_delivery d WHERE d.tenant_id = $1`,
        [tenant.id],
      );
      throw new Error(`${(error as Error).message}; deliveries: ${JSON.stringify(deliveries.rows)}`);
    });
    expect(requests.every((r) => r.headers['user-agent'] === 'Arbiter-Webhooks/1' && r.headers['content-type'] === 'application/json')).toBe(true);
    expect(
      requests.every((r) =>
        verifyWebhook(
          hook.secret,
          { timestamp: r.headers[TIMESTAMP_HEADER] as string, signature: r.headers[SIGNATURE_HEADER] as string },
          r.body,
          Date.now() / 1000,
        ),
      ),
    ).toBe(true);
    const byType = new Map(requests.map((r) => [(JSON.parse(r.body) as Envelope).type, JSON.parse(r.body) as Envelope]));
    expect([...byType.keys()].sort()).toEqual(['coverage.uncovered', 'feedback.bad_case', 'handoff.requested', 'job.failed']);
    expect(byType.get('handoff.requested')!.data).toMatchObject({
      sessionId: turn.sessionId,
      turn: { user: '机械臂可以在水下使用吗', assistant: turn.reply, shouldTransfer: true, references: [] },
      transcript: [{ user: '机械臂可以在水下使用吗' }],
    });
    expect(byType.get('coverage.uncovered')!.data).toMatchObject({
      sessionId: turn.sessionId,
      query: '机械臂可以在水下使用吗',
      reasonCode: expect.stringMatching(/^uncovered_/),
    });
    expect(byType.get('feedback.bad_case')!.data).toMatchObject({
      sessionId: turn.sessionId,
      comment: 'it can, IP68 model',
      turn: { user: '机械臂可以在水下使用吗' },
    });
    expect(byType.get('job.failed')!.data).toMatchObject({ name: 'test.always-fails', error: 'disk on fire', attempts: 1, maxAttempts: 1 });
    expect(requests.every((r) => (JSON.parse(r.body) as Envelope).tenantId === tenant.id)).toBe(true);

    const laterLog = await t.request({ method: 'GET', url: `/admin/webhooks/${laterId}/deliveries`, headers: op });
    expect(laterLog.json<{ items: unknown[] }>().items).toEqual([]);
    const log = await t.request({ method: 'GET', url: `/admin/webhooks/${hook.id}/deliveries`, headers: op });
    const delivered = log.json<{ items: { id: string; status: string; eventType: string }[] }>().items;
    expect(delivered.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);

    // Retention: events past WEBHOOK_RETENTION_DAYS go with their deliveries, except one whose redelivery is pending.
    const keep = delivered.find((d) => d.eventType === 'job.failed')!;
    const again = await t.request({ method: 'POST', url: `/admin/webhooks/${hook.id}/deliveries/${keep.id}/redeliver`, headers: op });
    expect(again.statusCode).toBe(202);
    await t.db.pool.query(`UPDATE webhook_event SET created_at = now() - interval '31 days' WHERE tenant_id = $1`, [tenant.id]);
    const redeliveryRun = await t.db.pool.query(`DELETE FROM job_run WHERE tenant_id = $1 AND name = 'webhooks.deliver' AND status = 'queued' RETURNING id`, [
      tenant.id,
    ]);
    expect(redeliveryRun.rowCount).toBe(1); // left pending on purpose: the cleanup must keep its event
    await jobs.enqueue(asTenantId(tenant.id), 'webhooks.cleanup');
    await jobs.runPending();
    expect(await types()).toEqual(['job.failed']);
    const left = await t.db.pool.query<{ status: string }>(`SELECT status FROM webhook_delivery WHERE tenant_id = $1 ORDER BY created_at`, [tenant.id]);
    expect(left.rows.map((r) => r.status)).toEqual(['succeeded', 'pending']);
  });
});
