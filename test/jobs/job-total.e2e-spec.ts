import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface JobRun {
  status: string;
  processed: number;
  failed: number;
  total: number | null;
}

const SESSIONS = 7;

describe('job run totals (e2e, jobs enabled)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const op = (tenant: TestTenant = acme) => ({ 'x-api-key': tenant.operatorKey });

  /** Polls GET /admin/jobs/:id until the run finished; returns every snapshot read. */
  const pollUntilDone = async (jobId: string): Promise<JobRun[]> => {
    const seen: JobRun[] = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await t.request({ method: 'GET', url: `/admin/jobs/${jobId}`, headers: op() });
      expect(res.statusCode).toBe(200);
      const run = res.json<JobRun>();
      seen.push(run);
      if (run.status === 'succeeded' || run.status === 'failed') return seen;
      if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    // Small batches so the run reports several steps; no scheduled sweep racing the manual run.
    t = await createTestApp({
      JOBS_ENABLED: 'true',
      JOBS_POLL_INTERVAL_MS: '50',
      COVERAGE_BACKFILL_BATCH_SIZE: '2',
      JOBS_SCHEDULES: JSON.stringify({ 'coverage.backfill': 'off', 'sessions.repair': 'off' }),
    });
    acme = await t.createTenant('total-acme');
    other = await t.createTenant('total-other');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('POST /admin/coverage/re-evaluate: total = the undecided sessions, processed ≤ total at every poll', async () => {
    // Sessions written without the finish hook (no decision yet), plus one of another tenant that must not count.
    const conv = await t.db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [acme.id]);
    for (let i = 0; i < SESSIONS; i++) {
      await t.db.pool.query(
        `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, source_references, knowledge_searched)
         VALUES ($1, $2, $3, 'ok', 'SUCCESS', '[{"score": 0.7}]', true)`,
        [acme.id, conv.rows[0]!.id, `legacy ${i}`],
      );
    }
    const otherConv = await t.db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [other.id]);
    await t.db.pool.query(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, source_references, knowledge_searched)
       VALUES ($1, $2, 'foreign', 'ok', 'SUCCESS', '[]', true)`,
      [other.id, otherConv.rows[0]!.id],
    );

    const res = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload: {} });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json<{ jobId: string }>();
    const seen = await pollUntilDone(jobId);

    for (const run of seen) if (run.total !== null) expect(run.processed).toBeLessThanOrEqual(run.total);
    expect(seen.at(-1)).toMatchObject({ status: 'succeeded', processed: SESSIONS, failed: 0, total: SESSIONS });

    // Listed the same way; a second run finds nothing left: total 0.
    const list = await t.request({ method: 'GET', url: '/admin/jobs?name=coverage.backfill', headers: op() });
    expect(list.json<{ items: (JobRun & { id: string })[] }>().items.find((r) => r.id === jobId)).toMatchObject({ total: SESSIONS });
    const again = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload: {} });
    expect((await pollUntilDone(again.json<{ jobId: string }>().jobId)).at(-1)).toMatchObject({ status: 'succeeded', processed: 0, total: 0 });
  });

  it('a job whose handler reports no total shows null', async () => {
    const run = await t.app.get(JobsService).enqueue(asTenantId(acme.id), 'jobs.cleanup');
    const seen = await pollUntilDone(run!.id);
    expect(seen.at(-1)).toMatchObject({ status: 'succeeded', total: null });
    expect(seen.every((r) => r.total === null)).toBe(true);
  });

  it('another tenant cannot read the run (404), and the route needs an operator key', async () => {
    const res = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload: {} });
    const { jobId } = res.json<{ jobId: string }>();
    expect((await t.request({ method: 'GET', url: `/admin/jobs/${jobId}`, headers: op(other) })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/admin/jobs/${jobId}`, headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
    await pollUntilDone(jobId);
  });
});
