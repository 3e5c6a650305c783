import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { resetStoragePressure } from '@arbiter/common';
import { KEY_DIRECTORY_FRESH_MS } from '@arbiter/tenancy';
import { createTestDatabase, triggerDdl, testDbKind, type TestDatabase } from '@arbiter/testing';
import { createApp } from '../../apps/api/src/create-app.js';
import { DatabaseProxy } from '../support/tcp-proxy.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';

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

  // PGlite: one backend shared by every connection, no per-connection setting.
  (testDbKind() !== 'pglite' ? it : it.skip)('applies DB_STATEMENT_TIMEOUT_MS (default 30 s) to pool connections on PostgreSQL', async () => {
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

  /**
   * An operator key this process has not seen (as if another replica had created it), old enough that the
   * app's key directory looks it up in the table (docs/http-edge.md "Keys").
   */
  async function keyMadeElsewhere(tenant: TestTenant): Promise<string> {
    const key = `ak_op_elsewhere${randomBytes(16).toString('hex')}`;
    await t.db.pool.query("INSERT INTO api_key (tenant_id, role, name, key_hash, key_prefix) VALUES ($1, 'operator', 'made elsewhere', $2, $3)", [
      tenant.id,
      createHash('sha256').update(key).digest('hex'),
      key.slice(0, 12),
    ]);
    await new Promise((resolve) => setTimeout(resolve, KEY_DIRECTORY_FRESH_MS + 100));
    return key;
  }

  beforeAll(async () => {
    t = await createTestApp();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('tables missing underneath the app (drop-and-restore): an uncached valid key gets 503, not 401 or 500', async () => {
    const key = await keyMadeElsewhere(await t.createTenant());
    await t.db.pool.query('ALTER TABLE api_key RENAME TO api_key_restoring');
    try {
      expectUnavailable(await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': key } }));
    } finally {
      await t.db.pool.query('ALTER TABLE api_key_restoring RENAME TO api_key');
    }
    expect((await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': key } })).statusCode).toBe(200);
  });

  it('key table emptied by a restore still loading its rows: an uncached valid key gets 503, then 200 once restored', async () => {
    const key = await keyMadeElsewhere(await t.createTenant());
    await t.db.pool.query('CREATE TABLE api_key_backup AS SELECT * FROM api_key');
    await t.db.pool.query('DELETE FROM api_key');
    try {
      expectUnavailable(await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': key } }));
    } finally {
      await t.db.pool.query('INSERT INTO api_key SELECT * FROM api_key_backup');
      await t.db.pool.query('DROP TABLE api_key_backup');
    }
    expect((await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    // A key that never existed is still 401 while the table has rows.
    expect((await t.request({ method: 'GET', url: '/admin/jobs', headers: { 'x-api-key': 'ak_op_not-a-real-key-000000000000' } })).statusCode).toBe(401);
  });

  it('disk full: a refused write is 507 STORAGE_FULL with Retry-After (nothing stored), /health degraded, reads still work', async () => {
    const tenant = await t.createTenant();
    const headers = { 'x-api-key': tenant.clientKey };
    // The driver's own disk_full (53100), as PostgreSQL raises it when it cannot extend a file.
    await t.db.pool.query(`CREATE FUNCTION fault_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full'; END $$`);
    await triggerDdl(t.db, 'CREATE TRIGGER fault_disk_full BEFORE INSERT ON diagnosis_session FOR EACH ROW EXECUTE FUNCTION fault_disk_full()');
    try {
      const res = await t.request({ method: 'POST', url: '/api/sessions', headers, payload: session });
      expect(res.statusCode).toBe(507);
      expect(res.json()).toMatchObject({
        statusCode: 507,
        code: 'STORAGE_FULL',
        message: 'Storage full: the database cannot store more data until space is freed',
      });
      expect(res.body).not.toMatch(/base\/1|extend file/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const health = await t.request({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({ status: 'degraded', database: { status: 'up' }, storage: { status: 'full', reason: 'write_refused' } });
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/documents', headers: { 'x-api-key': tenant.operatorKey } })).statusCode).toBe(200);
      const stored = await t.db.pool.query('SELECT 1 FROM diagnosis_session WHERE tenant_id = $1', [tenant.id]);
      expect(stored.rowCount).toBe(0);
    } finally {
      await triggerDdl(t.db, 'DROP TRIGGER fault_disk_full ON diagnosis_session');
      await t.db.pool.query('DROP FUNCTION fault_disk_full()');
      resetStoragePressure(); // the one-minute window is unit-tested (StorageHealth)
    }
    expect((await t.request({ method: 'POST', url: '/api/sessions', headers, payload: session })).statusCode).toBe(201);
    expect((await t.request({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok', storage: { status: 'ok' } });
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
      const boot = createApp({
        env: {
          NODE_ENV: 'test',
          DATABASE_URL: `postgres://arbiter:secret@127.0.0.1:${port}/arbiter`,
          DB_CONNECT_TIMEOUT_MS: '800',
          JOBS_ENABLED: 'false',
          SEED_DEMO: 'false',
        },
        logLevel: 'silent',
      });
      await expect(boot).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}/arbiter within 800 ms \\(DB_CONNECT_TIMEOUT_MS\\)`));
      expect(Date.now() - started).toBeLessThan(800 + 4000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
