import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { JobQueueRepository } from './job-queue.repository.js';
import { JobRunEntity } from './entities/job-run.entity.js';

const LEASE_MS = 600_000;

/** The shutdown release (README "Faults and outages"): progress saved and the run handed back in one statement. */
describe('JobQueueRepository.release', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let queue: JobQueueRepository;
  let tenant: string;

  const enqueue = async (name: string) =>
    (
      await db.pool.query<{ id: string }>(`INSERT INTO job_run (tenant_id, name, trigger, max_attempts) VALUES ($1, $2, 'manual', 1) RETURNING id`, [
        tenant,
        name,
      ])
    ).rows[0]!.id;
  const row = async (id: string) =>
    (
      await db.pool.query<{
        status: string;
        locked_by: string | null;
        locked_until: Date | null;
        attempts: number;
        processed: number;
        total: number | null;
        checkpoint: unknown;
      }>('SELECT status, locked_by, locked_until, attempts, processed, total, checkpoint FROM job_run WHERE id = $1', [id])
    ).rows[0]!;

  beforeAll(async () => {
    medium = await newMediumTest({ entities: [JobRunEntity] });
    db = medium.db;
    queue = await medium.service(JobQueueRepository);
    [tenant] = await medium.tenants('release-a');
  });
  afterAll(() => medium?.close());

  it('saves the update, queues the run without a lease and does not count the attempt: another worker claims it at once', async () => {
    const id = await enqueue('release.resume');
    await queue.claimNext('w1', ['release.resume'], LEASE_MS);
    await queue.progress(tenant, id, 'w1', LEASE_MS, { total: 10 });
    expect(await queue.release(tenant, id, 'w1', { processed: 4, checkpoint: 'c4' })).toBe(true);
    expect(await row(id)).toEqual({ status: 'queued', locked_by: null, locked_until: null, attempts: 0, processed: 4, total: 10, checkpoint: 'c4' });
    // The ten-minute lease would still hold; the released run is claimable now, and with max_attempts 1 it is not "given up".
    const resumed = await queue.claimNext('w2', ['release.resume'], LEASE_MS);
    expect(resumed).toMatchObject({ id, checkpoint: 'c4', processed: 4, total: 10, attempts: 1, maxAttempts: 1 });
    // The stopped worker can write nothing more.
    expect(await queue.progress(tenant, id, 'w1', LEASE_MS, { processed: 1 })).toBe(false);
    expect(await queue.release(tenant, id, 'w1', { processed: 1 })).toBe(false);
    expect((await row(id)).processed).toBe(4);
  });

  it('is refused when the lease was lost to another worker (nothing written)', async () => {
    const id = await enqueue('release.lost');
    await queue.claimNext('w1', ['release.lost'], LEASE_MS);
    await db.pool.query(`UPDATE job_run SET locked_until = now() - interval '1 minute' WHERE id = $1`, [id]);
    await queue.claimNext('w2', ['release.lost'], LEASE_MS);
    expect(await queue.release(tenant, id, 'w1', { processed: 3, checkpoint: 'x' })).toBe(false);
    expect(await row(id)).toMatchObject({ status: 'running', locked_by: 'w2', attempts: 2, processed: 0, checkpoint: null });
  });
});
