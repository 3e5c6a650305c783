import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook } from '@arbiter/webhooks';
import { createTestDatabase, type TestDatabase } from '@arbiter/testing';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Starts the app with its job worker in a child process; resolves once it booted. */
function startWorker(databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', './bench/support/register.mjs', 'test/webhooks/webhook-worker-child.ts', databaseUrl, TEST_ADMIN_TOKEN], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve(child);
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}) before it was ready: ${err.slice(-2000)}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Issue 24 item 5, faults: kill -9 of the worker in the middle of a delivery loses nothing; a restart delivers. */
describe(`webhooks: kill -9 of the worker mid-delivery (e2e, child processes, ${process.env.TEST_DB ?? 'pglite'})`, () => {
  const receiver = new WebhookReceiver();
  let db: TestDatabase;
  let t: TestApp | undefined;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    await receiver.start();
    db = await createTestDatabase();
    // The API process: answers turns and writes their events; it runs no jobs (JOBS_ENABLED=false in createTestApp).
    t = await createTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, db);
  }, 240_000);
  afterAll(async () => {
    if (worker && worker.exitCode === null) await killed(worker);
    await t?.close();
    await receiver.stop();
    await db?.close();
  });

  it('an event committed while no worker runs waits in the outbox; a worker killed mid-POST is replaced and the event arrives', async () => {
    const tenant = await t!.createTenant('webhooks-crash');
    const op = { 'x-api-key': tenant.operatorKey };
    const rule = await t!.request({
      method: 'POST',
      url: '/admin/intent-rules',
      headers: op,
      payload: { intent: 'human', keywords: ['转人工'], semanticExamples: ['我要转人工'], action: 'transfer' },
    });
    expect(rule.statusCode).toBe(201);
    expect((await t!.request({ method: 'PUT', url: '/admin/intent-config', headers: op, payload: { llmJudgeEnabled: false } })).statusCode).toBe(200);
    const created = await t!.request({ method: 'POST', url: '/admin/webhooks', headers: op, payload: { url: receiver.url, events: ['handoff.requested'] } });
    expect(created.statusCode).toBe(201);
    const hook = created.json<{ id: string; secret: string }>();

    const turn = await t!.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': tenant.clientKey }, payload: { message: '我要转人工' } });
    expect(turn.json<{ shouldTransfer: boolean }>().shouldTransfer).toBe(true);
    const sessionId = turn.json<{ sessionId: string }>().sessionId;
    const outbox = await db.pool.query<{ dispatched: boolean }>(`SELECT dispatched_at IS NOT NULL AS dispatched FROM webhook_event WHERE tenant_id = $1`, [
      tenant.id,
    ]);
    expect(outbox.rows).toEqual([{ dispatched: false }]);

    // The first attempt never gets an answer: the worker is killed while it waits.
    receiver.reply = (i) => (i === 0 ? 'hang' : { status: 200 });
    worker = await startWorker(db.url);
    const [first] = await receiver.waitFor(1, 60_000);
    await killed(worker);
    const inFlight = await db.pool.query<{ status: string; attempts: number; run: string }>(
      `SELECT d.status, d.attempts, r.status AS run FROM webhook_delivery d JOIN job_run r ON r.tenant_id = d.tenant_id AND r.payload->>'deliveryId' = d.id::text
        WHERE d.tenant_id = $1`,
      [tenant.id],
    );
    expect(inFlight.rows).toEqual([{ status: 'pending', attempts: 0, run: 'running' }]);

    // A new worker takes the run over once the dead one's lease (2 s) expired, and delivers.
    worker = await startWorker(db.url);
    const [, second] = await receiver.waitFor(2, 60_000);
    expect(second!.body).toBe(first!.body);
    expect(JSON.parse(second!.body)).toMatchObject({ type: 'handoff.requested', data: { sessionId } });
    expect(
      verifyWebhook(
        hook.secret,
        { timestamp: second!.headers[TIMESTAMP_HEADER] as string, signature: second!.headers[SIGNATURE_HEADER] as string },
        second!.body,
        Date.now() / 1000,
      ),
    ).toBe(true);
    const deadline = Date.now() + 30_000;
    let delivery: { status: string; attempts: number; response_status: number | null } | undefined;
    while (Date.now() < deadline) {
      delivery = (
        await db.pool.query<typeof delivery & object>(`SELECT status, attempts, response_status FROM webhook_delivery WHERE tenant_id = $1`, [tenant.id])
      ).rows[0];
      if (delivery?.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(delivery).toEqual({ status: 'succeeded', attempts: 1, response_status: 200 });
    const runs = await db.pool.query<{ status: string; attempts: number }>(
      `SELECT status, attempts FROM job_run WHERE tenant_id = $1 AND name = 'webhooks.deliver'`,
      [tenant.id],
    );
    expect(runs.rows).toEqual([{ status: 'succeeded', attempts: 2 }]);
    expect(receiver.received).toHaveLength(2);
  }, 180_000);
});
