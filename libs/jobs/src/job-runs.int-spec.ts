import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, type TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { JobRunEntity } from './entities/job-run.entity.js';
import { JobRunsRepository } from './job-runs.repository.js';

const ZONE = 'Asia/Shanghai';
/** 2026-03-01..2026-03-02 in Shanghai = [2026-02-28T16:00Z, 2026-03-02T16:00Z). */
const WINDOW = { from: '2026-03-01', to: '2026-03-02', timeZone: ZONE };

describe('JobRunsRepository.countByStatus', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let repo: JobRunsRepository;
  let a: TenantId;
  let b: TenantId;

  const insert = (tenant: TenantId, status: string, createdAt: string) =>
    db.pool.query(`INSERT INTO job_run (tenant_id, name, trigger, status, created_at) VALUES ($1, 'coverage.backfill', 'manual', $2, $3::timestamptz)`, [
      tenant,
      status,
      createdAt,
    ]);

  beforeAll(async () => {
    medium = await newMediumTest({ entities: [JobRunEntity] });
    db = medium.db;
    repo = await medium.service(JobRunsRepository);
    const t = await db.pool.query<{ id: string }>(`INSERT INTO tenant (name, time_zone) VALUES ('jobs-a', $1), ('jobs-b', $1) RETURNING id`, [ZONE]);
    a = asTenantId(t.rows[0].id);
    b = asTenantId(t.rows[1].id);
    await insert(a, 'succeeded', '2026-02-28T16:00:00Z'); // first instant of the window
    await insert(a, 'succeeded', '2026-03-01T08:00:00Z');
    await insert(a, 'failed', '2026-03-02T15:59:59.999Z'); // last instant
    await insert(a, 'queued', '2026-03-01T09:00:00Z');
    await insert(a, 'failed', '2026-02-28T15:59:59.999Z'); // before
    await insert(a, 'running', '2026-03-02T16:00:00Z'); // after
    await insert(b, 'failed', '2026-03-01T08:00:00Z');
    await insert(b, 'failed', '2026-03-01T09:00:00Z');
  });
  afterAll(() => medium?.close());

  it("counts the tenant's runs created in the window per status (days in the time zone), absent statuses left out", async () => {
    expect(await repo.countByStatus(a, WINDOW)).toEqual({ succeeded: 2, failed: 1, queued: 1 });
  });

  it('reads the days in the given time zone', async () => {
    expect(await repo.countByStatus(a, { ...WINDOW, timeZone: 'UTC' })).toEqual({ succeeded: 1, failed: 1, queued: 1, running: 1 });
  });

  it("never counts another tenant's runs", async () => {
    expect(await repo.countByStatus(b, WINDOW)).toEqual({ failed: 2 });
    expect(await repo.countByStatus(a, { from: '2020-01-01', to: '2020-01-31', timeZone: ZONE })).toEqual({});
  });
});
