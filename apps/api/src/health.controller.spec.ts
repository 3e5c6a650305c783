import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import type { DatabaseHealth } from '@arbiter/database';
import { HealthController } from './health.controller.js';

describe('HealthController', () => {
  it('answers 503 `down` without the driver error (hosts, ports, users stay in the log)', async () => {
    const database = { check: () => Promise.resolve({ status: 'down', reason: 'connect ECONNREFUSED 10.1.2.3:5432 (user "arbiter")' }) } as unknown as DatabaseHealth;
    const error = await new HealthController(database).check().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpException);
    const http = error as HttpException;
    expect(http.getStatus()).toBe(503);
    expect(http.getResponse()).toEqual({ message: 'Database unavailable', code: 'DATABASE_UNAVAILABLE', details: { database: { status: 'down' } } });
    expect(JSON.stringify(http.getResponse())).not.toMatch(/10\.1\.2\.3|5432|ECONNREFUSED|arbiter/);
  });
});
