import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { createApp } from '../../apps/api/src/create-app.js';
import { DatabaseProxy } from '../support/tcp-proxy.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const session = { query: 'reset the arm', answer: 'hold the reset button', status: 'SUCCESS' };

function expectUnavailable(res: LightMyRequestResponse): void {
  expect({ status: res.statusCode, code: res.json<{ code?: string }>().code }).toEqual({ status: 503, code: 'DATABASE_UNAVAILABLE' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|timeout exceeded/);
}

/** Issue 11: the database dropping or refusing connections is a 503 with Retry-After on every route, within bounded waits. */
describe('faults: database outage (e2e, TCP proxy in front of the database)', () => {
  let db: TestDatabase;
  let proxy: DatabaseProxy;
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    db = await createTestDatabase();
    const forUrl = DatabaseProxy.forUrl(db.url);
    proxy = forUrl.proxy;
    await proxy.start();
    t = await createTestApp({ DATABASE_URL: forUrl.url(), DB_CONNECT_TIMEOUT_MS: '1000', DB_POOL_WAIT_TIMEOUT_MS: '1000' }, db);
    tenant = await t.createTenant();
    // The client key is now cached by the guard; the operator key has never been looked up.
    expect((await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey }, payload: session })).statusCode).toBe(201);
  }, 240_000);
  afterAll(async () => {
    await proxy?.setMode('open');
    await t?.close();
    await proxy?.stop();
    await db?.close();
  });

  it('applies DB_STATEMENT_TIMEOUT_MS (default 30 s) to pool connections on PostgreSQL', async () => {
    if (db.kind !== 'postgres') return; // PGlite: one backend shared by every connection, no per-connection setting
    const [row] = await t.app.get(DataSource).query<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
    expect(row?.statement_timeout).toBe('30s');
  });

  for (const mode of ['refuse', 'silent'] as const) {
    it(`database ${mode === 'refuse' ? 'refusing connections' : 'accepting but never answering'}: 503 DATABASE_UNAVAILABLE + Retry-After on every route, auth included, never 401`, async () => {
      await proxy.setMode(mode);
      try {
        const started = Date.now();
        // A cached client key: the route's own query fails.
        expectUnavailable(await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey }, payload: session }));
        // An uncached operator key: the guard's API-key lookup fails → 503, not 401 "Invalid API key".
        expectUnavailable(await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': tenant.operatorKey } }));
        // The platform admin route.
        expectUnavailable(await t.request({ method: 'GET', url: '/admin/tenants', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }));
        // /health agrees (in the silent case its shared probe may still be waiting: `busy`, 200).
        if (mode === 'refuse') expectUnavailable(await t.request({ method: 'GET', url: '/health' }));
        // Bounded: three requests, each waits at most the 1 s connect / pool-wait timeout.
        expect(Date.now() - started).toBeLessThan(3 * 1000 + 3000);
      } finally {
        await proxy.setMode('open');
      }
      // The database is back: the same keys work again.
      const res = await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': tenant.operatorKey } });
      expect(res.statusCode).toBe(200);
    });
  }
});

describe('faults: database restore in progress (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('tables missing underneath the app (drop-and-restore): an uncached valid key gets 503, not 401 or 500', async () => {
    const tenant = await t.createTenant();
    await t.db.pool.query('ALTER TABLE api_key RENAME TO api_key_restoring');
    try {
      expectUnavailable(await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': tenant.operatorKey } }));
    } finally {
      await t.db.pool.query('ALTER TABLE api_key_restoring RENAME TO api_key');
    }
    expect((await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': tenant.operatorKey } })).statusCode).toBe(200);
  });
});

describe('faults: boot against an unreachable database', () => {
  it('fails within DB_CONNECT_TIMEOUT_MS with a message naming the database and the setting', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const started = Date.now();
    try {
      const boot = createApp({ env: { NODE_ENV: 'test', DATABASE_URL: `postgres://arbiter:secret@127.0.0.1:${port}/arbiter`, DB_CONNECT_TIMEOUT_MS: '800', JOBS_ENABLED: 'false', SEED_DEMO: 'false' }, logLevel: 'silent' });
      await expect(boot).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}/arbiter within 800 ms \\(DB_CONNECT_TIMEOUT_MS\\)`));
      expect(Date.now() - started).toBeLessThan(800 + 4000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
