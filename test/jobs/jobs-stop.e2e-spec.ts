import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JobsService, type JobContext } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** JobsService.stop (SIGTERM, README "Faults and outages"): the running handler is released at its next checkpoint. */
describe(`jobs: stop releases the running run at its next checkpoint (e2e, ${process.env.TEST_DB ?? 'pglite'})`, () => {
  let t: TestApp;
  let second: TestApp;
  let tenant: TestTenant;
  const processedItems: number[] = [];
  let onItem: (item: number) => Promise<void> = async () => undefined;

  beforeAll(async () => {
    t = await createTestApp();
    second = await createTestApp({}, t.db);
    tenant = await t.createTenant('jobs-stop');
    for (const app of [t, second]) {
      app.app.get(JobsService).defineAdHoc<{ total: number }>({
        name: 'test.stoppable',
        maxAttempts: 1,
        handler: async (ctx: JobContext<{ total: number }>) => {
          let next = typeof ctx.checkpoint === 'number' ? ctx.checkpoint : 0;
          while (next < ctx.payload.total) {
            processedItems.push(next);
            await onItem(next);
            next++;
            await ctx.progress({ processed: 1, checkpoint: next });
          }
        },
      });
    }
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it('saves the step in progress, queues the run without a lease, and another process resumes it at once: every item once', async () => {
    const jobs = t.app.get(JobsService);
    const run = await jobs.enqueue(asTenantId(tenant.id), 'test.stoppable', { total: 8 });
    let stopped: Promise<void> | undefined;
    onItem = async (item) => {
      // Asked to stop while item 3 is being worked on: that item is finished and checkpointed, then the run is released.
      if (item === 3) stopped = jobs.stop();
    };
    expect(await jobs.runPending()).toBe(1);
    await stopped;
    expect(processedItems).toEqual([0, 1, 2, 3]);
    expect(await jobs.get(asTenantId(tenant.id), run!.id)).toMatchObject({ status: 'queued', attempts: 0, processed: 4, checkpoint: 4, error: null });
    const { rows } = await t.db.pool.query<{ locked_by: string | null; locked_until: Date | null }>(
      'SELECT locked_by, locked_until FROM job_run WHERE id = $1',
      [run!.id],
    );
    expect(rows[0]).toEqual({ locked_by: null, locked_until: null });
    // A stopped service claims nothing more.
    expect(await jobs.runPending()).toBe(0);

    onItem = async () => undefined;
    // maxAttempts is 1: the released attempt did not use it up.
    expect(await second.app.get(JobsService).runPending()).toBe(1);
    expect(processedItems).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await second.app.get(JobsService).get(asTenantId(tenant.id), run!.id)).toMatchObject({ status: 'succeeded', attempts: 1, processed: 8 });
  });
});
