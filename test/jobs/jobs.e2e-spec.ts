import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JobsService, type JobContext } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface BatchPayload {
  total: number;
  crashAfter?: number;
}

interface HoldPayload {
  label: string;
  hold?: boolean;
}

describe('jobs framework (e2e)', () => {
  let t: TestApp;
  let second: TestApp;
  let jobs: JobsService;
  let acme: TestTenant;
  let other: TestTenant;
  const processedItems: number[] = [];
  let crashOnce = true;
  const holdStarted: string[] = [];
  let releaseHeld = (): void => undefined;
  let held = Promise.resolve();

  beforeAll(async () => {
    t = await createTestApp();
    second = await createTestApp({}, t.db);
    acme = await t.createTenant('jobs-acme');
    other = await t.createTenant('jobs-other');
    jobs = t.app.get(JobsService);
    for (const service of [jobs, second.app.get(JobsService)]) {
      service.defineAdHoc<BatchPayload>({
        name: 'test.batches',
        maxAttempts: 3,
        handler: async (ctx: JobContext<BatchPayload>) => {
          let next = typeof ctx.checkpoint === 'number' ? ctx.checkpoint : 0;
          while (next < ctx.payload.total) {
            if (ctx.payload.crashAfter !== undefined && next === ctx.payload.crashAfter && crashOnce) {
              crashOnce = false;
              throw new Error('simulated crash');
            }
            processedItems.push(next);
            next++;
            await ctx.progress({ processed: 1, checkpoint: next });
          }
        },
      });
      service.defineAdHoc<HoldPayload>({
        name: 'test.hold',
        handler: async (ctx: JobContext<HoldPayload>) => {
          holdStarted.push(ctx.payload.label);
          if (ctx.payload.hold) await held;
        },
      });
      service.defineAdHoc({ name: 'test.always-fails', maxAttempts: 2, handler: async () => Promise.reject(new Error('boom')) });
      service.defineAdHoc({ name: 'test.scheduled', cron: '*/5 * * * *', handler: async () => undefined });
    }
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('runs a queued job, recording progress and success', async () => {
    const run = await jobs.enqueue(asTenantId(acme.id), 'test.batches', { total: 3 });
    expect(run?.status).toBe('queued');
    await jobs.runPending();
    const done = await jobs.get(asTenantId(acme.id), run!.id);
    expect(done).toMatchObject({ status: 'succeeded', processed: 3, attempts: 1, checkpoint: 3 });
    expect(done.finishedAt).not.toBeNull();
  });

  it('resumes a failed attempt from its checkpoint: nothing skipped, nothing doubled', async () => {
    processedItems.length = 0;
    const run = await jobs.enqueue(asTenantId(acme.id), 'test.batches', { total: 6, crashAfter: 4 });
    await jobs.runPending();
    expect(await jobs.get(asTenantId(acme.id), run!.id)).toMatchObject({ status: 'queued', attempts: 1, error: 'simulated crash', checkpoint: 4 });
    await t.db.pool.query(`UPDATE job_run SET run_after = now() WHERE id = $1`, [run!.id]);
    await jobs.runPending();
    expect(processedItems).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await jobs.get(asTenantId(acme.id), run!.id)).toMatchObject({ status: 'succeeded', attempts: 2, processed: 6 });
  });

  it('re-claims a run whose worker died (lease expired) and resumes it', async () => {
    processedItems.length = 0;
    const run = await jobs.enqueue(asTenantId(acme.id), 'test.batches', { total: 4 });
    // A worker that died after committing two items: running, lease long gone.
    await t.db.pool.query(
      `UPDATE job_run SET status = 'running', locked_by = 'dead-worker', locked_until = now() - interval '1 minute', attempts = 1, checkpoint = '2', processed = 2 WHERE id = $1`,
      [run!.id],
    );
    await jobs.runPending();
    expect(processedItems).toEqual([2, 3]);
    expect(await jobs.get(asTenantId(acme.id), run!.id)).toMatchObject({ status: 'succeeded', processed: 4, attempts: 2 });
  });

  it('retries with backoff, then marks the run failed with its error', async () => {
    const run = await jobs.enqueue(asTenantId(acme.id), 'test.always-fails');
    await jobs.runPending();
    const first = await jobs.get(asTenantId(acme.id), run!.id);
    expect(first).toMatchObject({ status: 'queued', attempts: 1, error: 'boom' });
    expect(first.runAfter.getTime()).toBeGreaterThan(Date.now());
    await t.db.pool.query(`UPDATE job_run SET run_after = now() WHERE id = $1`, [run!.id]);
    await jobs.runPending();
    expect(await jobs.get(asTenantId(acme.id), run!.id)).toMatchObject({ status: 'failed', attempts: 2, error: 'boom' });
  });

  it('a scheduled tick creates exactly one run per tenant across two app instances', async () => {
    const tick = new Date('2030-01-01T00:05:00Z');
    const before = new Date(tick.getTime() - 60_000);
    const services = [jobs, second.app.get(JobsService)];
    // Both replicas learn the same next tick, then both see it pass at the same moment.
    await Promise.all(services.map((s) => s.enqueueDueSchedules(before)));
    const created = await Promise.all(services.map((s) => s.enqueueDueSchedules(new Date(tick.getTime() + 1000))));
    const { rows } = await t.db.pool.query<{ tenant_id: string; n: number }>(
      `SELECT tenant_id, count(*)::int AS n FROM job_run WHERE name = 'test.scheduled' GROUP BY tenant_id`,
    );
    expect(created[0]! + created[1]!).toBe(2);
    expect(rows.map((r) => r.n)).toEqual([1, 1]);
    expect(rows.map((r) => r.tenant_id).sort()).toEqual([acme.id, other.id].sort());
  });

  it("runs another tenant's run beside a long one, but one run of a tenant at a time (JOBS_CONCURRENCY)", async () => {
    const third = await t.createTenant('jobs-third');
    // Runs left by earlier tests (the scheduled tick's, due now) would be claimed first and keep acme busy, so a1
    // could be claimed only after b1 finished: start from an empty queue.
    await jobs.runPending();
    held = new Promise<void>((resolve) => (releaseHeld = resolve));
    holdStarted.length = 0;
    const a1 = await jobs.enqueue(asTenantId(acme.id), 'test.hold', { label: 'a1', hold: true });
    const a2 = await jobs.enqueue(asTenantId(acme.id), 'test.hold', { label: 'a2' });
    const b1 = await jobs.enqueue(asTenantId(third.id), 'test.hold', { label: 'b1' });
    const draining = jobs.runPending();
    // b1 finishes while a1 is still held: the long run of acme does not keep the third tenant's run waiting.
    const deadline = Date.now() + 10_000;
    const settled = async (): Promise<boolean> => (await jobs.get(asTenantId(third.id), b1!.id)).status === 'succeeded' && holdStarted.includes('a1');
    while (!(await settled()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await jobs.get(asTenantId(third.id), b1!.id)).toMatchObject({ status: 'succeeded' });
    expect(await jobs.get(asTenantId(acme.id), a1!.id)).toMatchObject({ status: 'running' });
    expect(await jobs.get(asTenantId(acme.id), a2!.id)).toMatchObject({ status: 'queued' });
    expect([...holdStarted].sort()).toEqual(['a1', 'b1']);
    releaseHeld();
    await draining;
    expect(holdStarted).toHaveLength(3);
    expect(holdStarted[2]).toBe('a2');
    expect(await jobs.get(asTenantId(acme.id), a2!.id)).toMatchObject({ status: 'succeeded' });
  });

  describe('HTTP', () => {
    it("lists only the tenant's runs, newest first, with cursor pagination", async () => {
      const first = await t.request({ method: 'GET', url: '/admin/jobs?limit=2', headers: { 'x-api-key': acme.operatorKey } });
      expect(first.statusCode).toBe(200);
      const page = first.json<{ items: { id: string; createdAt: string }[]; nextCursor: string }>();
      expect(page.items).toHaveLength(2);
      expect(page.nextCursor).toEqual(expect.any(String));
      const rest = await t.request({ method: 'GET', url: `/admin/jobs?limit=200&cursor=${page.nextCursor}`, headers: { 'x-api-key': acme.operatorKey } });
      const restIds = rest.json<{ items: { id: string }[] }>().items.map((r) => r.id);
      expect(restIds).not.toContain(page.items[0]!.id);
      const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM job_run WHERE tenant_id = $1', [acme.id]);
      expect(page.items.length + restIds.length).toBe(rows[0].n);
      const otherList = await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': other.operatorKey } });
      expect(otherList.json<{ items: { name: string }[] }>().items.every((r) => r.name === 'test.scheduled')).toBe(true);
    });

    it("GET /admin/jobs/:id: own run 200, another tenant's 404, non-uuid 400", async () => {
      const run = await jobs.enqueue(asTenantId(acme.id), 'test.batches', { total: 1 });
      const own = await t.request({ method: 'GET', url: `/admin/jobs/${run!.id}`, headers: { 'x-api-key': acme.operatorKey } });
      expect(own.statusCode).toBe(200);
      expect(own.json()).toMatchObject({ id: run!.id, name: 'test.batches', status: 'queued' });
      const foreign = await t.request({ method: 'GET', url: `/admin/jobs/${run!.id}`, headers: { 'x-api-key': other.operatorKey } });
      expect(foreign.statusCode).toBe(404);
      const bad = await t.request({ method: 'GET', url: '/admin/jobs/not-a-uuid', headers: { 'x-api-key': acme.operatorKey } });
      expect(bad.statusCode).toBe(400);
    });

    it.each(['limit=0', 'limit=201', 'limit=abc', 'status=done', 'cursor=%%%', 'unknown=1'])('rejects bad query %s with 400', async (query) => {
      const res = await t.request({ method: 'GET', url: `/admin/jobs?${query}`, headers: { 'x-api-key': acme.operatorKey } });
      expect(res.statusCode).toBe(400);
    });

    it('needs an operator key', async () => {
      expect((await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: '/admin/jobs' })).statusCode).toBe(401);
    });
  });
});
