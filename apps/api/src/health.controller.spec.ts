import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import type { DatabaseHealth } from '@arbiter/database';
import { HealthController } from './health.controller.js';
import type { StorageHealth } from './storage-health.js';

const storageOk = { check: () => Promise.resolve({ status: 'ok' }) } as unknown as StorageHealth;

describe('HealthController', () => {
  it('answers 503 `down` without the driver error (hosts, ports, users stay in the log)', async () => {
    const database = {
      check: () => Promise.resolve({ status: 'down', reason: 'connect ECONNREFUSED 10.1.2.3:5432 (user "arbiter")' }),
    } as unknown as DatabaseHealth;
    const error = await new HealthController(database, storageOk).check().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpException);
    const http = error as HttpException;
    expect(http.getStatus()).toBe(503);
    expect(http.getResponse()).toEqual({ message: 'Database unavailable', code: 'DATABASE_UNAVAILABLE', details: { database: { status: 'down' } } });
    expect(JSON.stringify(http.getResponse())).not.toMatch(/10\.1\.2\.3|5432|ECONNREFUSED|arbiter/);
  });

  it('says degraded (200) with the storage reason while storage is full', async () => {
    const database = { check: () => Promise.resolve({ status: 'up', latencyMs: 1 }) } as unknown as DatabaseHealth;
    const full = { check: () => Promise.resolve({ status: 'full', reason: 'write_refused', since: '2026-11-30T00:00:00.000Z' }) } as unknown as StorageHealth;
    expect(await new HealthController(database, full).check()).toEqual({
      status: 'degraded',
      database: { status: 'up', latencyMs: 1 },
      storage: { status: 'full', reason: 'write_refused', since: '2026-11-30T00:00:00.000Z' },
    });
    expect((await new HealthController(database, storageOk).check()).status).toBe('ok');
  });
});
