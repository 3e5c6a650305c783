import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@arbiter/testing';
import { createApp } from '../../apps/api/src/create-app.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestTenant {
  id: string;
  name: string;
  clientKey: string;
  operatorKey: string;
}

export interface TestApp {
  app: NestFastifyApplication;
  db: TestDatabase;
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  createTenant(name?: string): Promise<TestTenant>;
  close(): Promise<void>;
}

let tenantCounter = 0;

/** The real application on a fresh isolated database, driven over HTTP through Fastify's inject. */
export async function createTestApp(env: Record<string, string | undefined> = {}, existingDb?: TestDatabase): Promise<TestApp> {
  const db = existingDb ?? (await createTestDatabase());
  const app = await createApp({
    env: { NODE_ENV: 'test', DATABASE_URL: db.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN, JOBS_ENABLED: 'false', SEED_DEMO: 'false', DB_POOL_MAX: '4', ...env },
    logLevel: (process.env.TEST_LOG_LEVEL as 'silent' | undefined) ?? 'silent',
  });
  const fastify = app.getHttpAdapter().getInstance();
  const request = (options: InjectOptions) => fastify.inject(options);
  return {
    app,
    db,
    request,
    async createTenant(name = `tenant-${process.pid}-${++tenantCounter}`) {
      const res = await request({ method: 'POST', url: '/admin/tenants', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { name } });
      if (res.statusCode !== 201) throw new Error(`createTenant failed: ${res.statusCode} ${res.body}`);
      const body = res.json<{ id: string; name: string; apiKeys: { client: string; operator: string } }>();
      return { id: body.id, name: body.name, clientKey: body.apiKeys.client, operatorKey: body.apiKeys.operator };
    },
    async close() {
      await app.close();
      if (!existingDb) await db.close();
    },
  };
}
