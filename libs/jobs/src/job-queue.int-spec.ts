import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { JobQueueRepository } from './job-queue.repository.js';
import { JobRunEntity } from './entities/job-run.entity.js';

const LEASE_MS = 60_000;

describe('JobQueueRepository: the run total (migration 0180)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let queue: JobQueueRepository;
  let tenant: string;
  let other: string;

  const enqueue = async (t: string, name: string) =>
    (await db.pool.query<{ id: string }>(`INSERT INTO job_run (tenant_id, name, trigger) VALUES ($1, $2, 'manual') RETURNING id`, [t, name])).rows[0]!.id;
  const row = async (id: string) =>
    (await db.pool.query<{ processed: number; failed: number; total: number | null }>('SELECT processed, failed, total FROM job_run WHERE id = $1', [id]))
      .rows[0]!;

  beforeAll(async () => {
    medium = await newMediumTest({ entities: [JobRunEntity], max: 6 });
    db = medium.db;
    ds = medium.dataSource;
    queue = await medium.service(JobQueueRepository);
    [tenant, other] = await medium.tenants('total-a', 'total-b');
  });
  afterAll(() => medium?.close());

  it('the entity matches the migrated schema (no drift)', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('a new run has no total; the column refuses a negative one', async () => {
    const id = await enqueue(tenant, 'total.fresh');
    expect((await row(id)).total).toBeNull();
    await expect(db.pool.query('UPDATE job_run SET total = -1 WHERE id = $1', [id])).rejects.toThrow(/chk_job_run_total/);
  });

  it('sets the total, keeps it across progress without one, and never lets processed overtake it', async () => {
    const id = await enqueue(tenant, 'total.set');
    const claimed = await queue.claimNext('w1', ['total.set'], LEASE_MS);
    expect(claimed).toMatchObject({ id, processed: 0, total: null });
    expect(await queue.progress(tenant, id, 'w1', LEASE_MS, { total: 5 })).toBe(true);
    expect(await row(id)).toEqual({ processed: 0, failed: 0, total: 5 });
    await queue.progress(tenant, id, 'w1', LEASE_MS, { processed: 3, failed: 1 });
    expect(await row(id)).toEqual({ processed: 3, failed: 1, total: 5 });
    // Items that appeared after the count: the total follows processed up.
    await queue.progress(tenant, id, 'w1', LEASE_MS, { processed: 4 });
    expect(await row(id)).toEqual({ processed: 7, failed: 1, total: 7 });
    // A total below processed (given with or before the counter) is raised to it.
    await queue.progress(tenant, id, 'w1', LEASE_MS, { processed: 1, total: 2 });
    expect(await row(id)).toEqual({ processed: 8, failed: 1, total: 8 });
  });

  it('progress without a total leaves a run without one at null', async () => {
    const id = await enqueue(tenant, 'total.none');
    await queue.claimNext('w1', ['total.none'], LEASE_MS);
    await queue.progress(tenant, id, 'w1', LEASE_MS, { processed: 3, checkpoint: 3 });
    expect(await row(id)).toEqual({ processed: 3, failed: 0, total: null });
  });

  it('a resumed attempt is handed the processed count and total saved with its checkpoint', async () => {
    const id = await enqueue(tenant, 'total.resume');
    await queue.claimNext('w1', ['total.resume'], LEASE_MS);
    await queue.progress(tenant, id, 'w1', LEASE_MS, { total: 10 });
    await queue.progress(tenant, id, 'w1', LEASE_MS, { processed: 4, checkpoint: 'c4' });
    // The worker dies: its lease expires and another worker claims the run.
    await db.pool.query(`UPDATE job_run SET locked_until = now() - interval '1 minute' WHERE id = $1`, [id]);
    const resumed = await queue.claimNext('w2', ['total.resume'], LEASE_MS);
    expect(resumed).toMatchObject({ id, checkpoint: 'c4', processed: 4, total: 10, attempts: 2 });
    // The dead worker can no longer write; the new one re-reports (processed + remaining).
    expect(await queue.progress(tenant, id, 'w1', LEASE_MS, { total: 1 })).toBe(false);
    expect(await queue.progress(tenant, id, 'w2', LEASE_MS, { total: 4 + 5 })).toBe(true);
    expect(await row(id)).toEqual({ processed: 4, failed: 0, total: 9 });
  });

  it("addresses the run by tenant: another tenant's id changes nothing", async () => {
    const id = await enqueue(other, 'total.tenant');
    await queue.claimNext('w1', ['total.tenant'], LEASE_MS);
    expect(await queue.progress(tenant, id, 'w1', LEASE_MS, { total: 3 })).toBe(false);
    expect((await row(id)).total).toBeNull();
  });

  it('workers racing for the same runs claim each once (two-step claim, docs/SCALING.md "Jobs on a distributed cluster")', async () => {
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await enqueue(i % 2 ? tenant : other, 'claim.race'));
    // More claimers than runs, on six connections: each reads the same oldest candidates, most lose some races.
    const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => queue.claimNext(`race-${i}`, ['claim.race'], LEASE_MS)));
    const claimed = claims.filter((c) => c !== null);
    expect(claimed.map((c) => c.id).sort()).toEqual([...ids].sort());
    const { rows } = await db.pool.query<{ attempts: number; locked_by: string }>(`SELECT attempts, locked_by FROM job_run WHERE name = 'claim.race'`);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    expect(new Set(rows.map((r) => r.locked_by)).size).toBe(10);
    expect(await queue.claimNext('late', ['claim.race'], LEASE_MS)).toBeNull();
  });
});
