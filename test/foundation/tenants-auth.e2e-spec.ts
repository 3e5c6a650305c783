import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';

describe('tenants and auth (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant('acme');
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a tenant with a client and an operator key, shown once and stored hashed', async () => {
    expect(acme.clientKey).toMatch(/^ak_cli_/);
    expect(acme.operatorKey).toMatch(/^ak_op_/);
    const stored = await t.db.pool.query<{ key_hash: string }>('SELECT key_hash FROM api_key WHERE tenant_id = $1', [acme.id]);
    expect(stored.rows).toHaveLength(2);
    for (const row of stored.rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect([acme.clientKey, acme.operatorKey]).not.toContain(row.key_hash);
    }
  });

  it('lists tenants for the admin, without keys', async () => {
    const res = await t.request({ method: 'GET', url: '/admin/tenants', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    const list = res.json<{ name: string; apiKeys?: unknown }[]>();
    expect(list.map((x) => x.name)).toContain('acme');
    expect(list[0]).not.toHaveProperty('apiKeys');
  });

  it('rejects a duplicate tenant name with 409 and writes nothing', async () => {
    const before = await t.db.pool.query('SELECT count(*)::int AS n FROM api_key');
    const res = await t.request({ method: 'POST', url: '/admin/tenants', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { name: 'acme' } });
    expect(res.statusCode).toBe(409);
    const after = await t.db.pool.query('SELECT count(*)::int AS n FROM api_key');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it.each([
    ['no token', undefined, 401],
    ['wrong token', 'Bearer nope-nope-nope-nope', 401],
    ['a tenant key as bearer', 'Bearer ak_op_xxx', 401],
  ])('admin routes: %s → %s', async (_label, authorization, status) => {
    const res = await t.request({ method: 'GET', url: '/admin/tenants', headers: authorization ? { authorization } : {} });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ statusCode: status, error: 'Unauthorized', requestId: expect.any(String) });
  });

  it('refuses an operator key on platform admin routes (401: admin routes take the admin token only)', async () => {
    const res = await t.request({ method: 'GET', url: '/admin/tenants', headers: { 'x-api-key': acme.operatorKey } });
    expect(res.statusCode).toBe(401);
  });

  it('validates the tenant name (400 naming the field)', async () => {
    const res = await t.request({ method: 'POST', url: '/admin/tenants', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { name: '' } });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: { fields: string[] } }>().details.fields).toContain('name');
  });

  it('missing API key → 401, unknown key → 401, with the one error shape', async () => {
    const missing = await t.request({ method: 'GET', url: '/api/sessions/00000000-0000-4000-8000-000000000000' });
    expect(missing.statusCode).toBe(401);
    const unknown = await t.request({ method: 'GET', url: '/api/sessions/00000000-0000-4000-8000-000000000000', headers: { 'x-api-key': 'ak_cli_unknown' } });
    expect(unknown.statusCode).toBe(401);
    expect(Object.keys(unknown.json()).sort()).toEqual(['code', 'error', 'message', 'requestId', 'statusCode']);
  });

  it('echoes a caller-supplied request id in the header and the error body', async () => {
    const res = await t.request({ method: 'GET', url: '/api/sessions/x', headers: { 'x-request-id': 'trace-abc-123' } });
    expect(res.headers['x-request-id']).toBe('trace-abc-123');
    expect(res.json<{ requestId: string }>().requestId).toBe('trace-abc-123');
  });

  it('unknown routes → 404 in the error shape', async () => {
    const res = await t.request({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ statusCode: 404, error: 'Not Found', requestId: expect.any(String) });
  });
});
