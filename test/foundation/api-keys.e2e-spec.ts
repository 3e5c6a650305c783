import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TenancyService } from '@arbiter/tenancy';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';

interface KeyBody {
  id: string;
  name: string;
  role: string;
  prefix: string;
  status: string;
  key?: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  allowedOrigins: string[];
  previousSecretValidUntil: string | null;
}

const SHOP = 'https://shop.example.com';

/** Issue 25 items 1 and 2: named keys with roles, expiry, rotation, revocation and allowed origins (docs/http-edge.md "Keys"). */
describe('API keys (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;

  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const createKey = async (tenant: TestTenant, payload: Record<string, unknown>) => {
    const res = await t.request({ method: 'POST', url: '/admin/api-keys', headers: op(tenant), payload });
    expect(res.statusCode).toBe(201);
    return res.json<KeyBody>();
  };
  const listKeys = async (tenant: TestTenant) => {
    const res = await t.request({ method: 'GET', url: '/admin/api-keys', headers: op(tenant) });
    expect(res.statusCode).toBe(200);
    return res.json<KeyBody[]>();
  };
  const lookup = (key: string, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: '/ai/knowledge/lookup', headers: { 'x-api-key': key, ...headers }, payload: { sessionId: 'keys-e2e', query: 'hello' } });

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('lists the two keys a tenant is created with, named after their roles, without secrets', async () => {
    const keys = await listKeys(acme);
    expect(keys.map((k) => [k.name, k.role, k.status]).sort()).toEqual([
      ['client', 'client', 'active'],
      ['operator', 'operator', 'active'],
    ]);
    expect(JSON.stringify(keys)).not.toContain(acme.clientKey);
    expect(keys.every((k) => k.key === undefined && acme.clientKey.startsWith(k.prefix) !== acme.operatorKey.startsWith(k.prefix))).toBe(true);
  });

  it('creates a named key in any script that authenticates at once, and shows its secret only in the answer', async () => {
    const created = await createKey(acme, { name: '  客服网页组件 widget ', role: 'client' });
    expect(created).toMatchObject({ name: '客服网页组件 widget', role: 'client', status: 'active', revokedAt: null, allowedOrigins: [] });
    expect(created.key).toMatch(/^ak_cli_/);
    expect(created.key!.startsWith(created.prefix)).toBe(true);
    expect((await lookup(created.key!)).statusCode).toBe(200);
    const listed = (await listKeys(acme)).find((k) => k.id === created.id);
    expect(listed).toMatchObject({ name: '客服网页组件 widget', role: 'client' });
    expect(listed!.key).toBeUndefined();
    const stored = await t.db.pool.query<{ key_hash: string }>('SELECT key_hash FROM api_key WHERE id = $1', [created.id]);
    expect(stored.rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0].key_hash).not.toContain(created.key!.slice(8));
  });

  it.each([
    ['an empty name', { name: '   ', role: 'client' }, 'name'],
    ['a name over 100 characters', { name: 'x'.repeat(101), role: 'client' }, 'name'],
    ['a control character in the name', { name: 'a\u0007b', role: 'client' }, 'name'],
    ['an unknown role', { name: 'x', role: 'root' }, 'role'],
    ['no role', { name: 'x' }, 'role'],
    ['an expiry that is not a date', { name: 'x', role: 'client', expiresAt: 'tomorrow' }, 'expiresAt'],
    ['an expiry in the past', { name: 'x', role: 'client', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
    ['an origin with a path', { name: 'x', role: 'client', allowedOrigins: ['https://shop.example.com/chat'] }, 'allowedOrigins'],
    ['an origin with a trailing slash', { name: 'x', role: 'client', allowedOrigins: ['https://shop.example.com/'] }, 'allowedOrigins'],
    ['an origin that is no URL', { name: 'x', role: 'client', allowedOrigins: ['shop.example.com'] }, 'allowedOrigins'],
    ['too many origins', { name: 'x', role: 'client', allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://s${i}.example.com`) }, 'allowedOrigins'],
    ['an unknown field', { name: 'x', role: 'client', secret: 'mine' }, 'secret'],
  ])('refuses %s with a 400 naming the field, and writes nothing', async (_name, payload, field) => {
    const before = (await listKeys(acme)).length;
    const res = await t.request({ method: 'POST', url: '/admin/api-keys', headers: op(acme), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toContain(field);
    expect((await listKeys(acme)).length).toBe(before);
  });

  it('refuses a wrong, malformed or missing key with 401 and a client key on key management with 403', async () => {
    expect((await t.request({ method: 'GET', url: '/admin/api-keys', headers: { 'x-api-key': 'ak_op_not-a-key' } })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/admin/api-keys', headers: { 'x-api-key': '\u00e9\u00e9' } })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/admin/api-keys' })).statusCode).toBe(401);
    const client = await t.request({ method: 'GET', url: '/admin/api-keys', headers: { 'x-api-key': acme.clientKey } });
    expect(client.statusCode).toBe(403);
    const write = await t.request({
      method: 'POST',
      url: '/admin/api-keys',
      headers: { 'x-api-key': acme.clientKey },
      payload: { name: 'mine', role: 'operator' },
    });
    expect(write.statusCode).toBe(403);
  });

  it('lets a viewer read and use the console’s read-only calls, and nothing else', async () => {
    const viewer = (await createKey(acme, { name: 'console viewer', role: 'viewer' })).key!;
    const as = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
      t.request({ method, url, headers: { 'x-api-key': viewer }, ...(payload ? { payload } : {}) });
    expect((await as('GET', '/admin/api-keys')).statusCode).toBe(200);
    expect((await as('GET', '/admin/intent-rules')).statusCode).toBe(200);
    expect((await as('GET', '/admin/knowledge/documents')).statusCode).toBe(200);
    expect((await as('POST', '/ai/intent/route', { message: 'hello' })).statusCode).toBe(200);
    expect((await lookup(viewer)).statusCode).toBe(200);
    expect((await as('POST', '/admin/intent-rules/evaluate', { examples: [{ text: 'hello', intent: null }] })).statusCode).toBe(200);
    const refused = [
      await as('POST', '/admin/api-keys', { name: 'escalate', role: 'operator' }),
      await as('POST', '/admin/intent-rules', { intent: 'x', keywords: ['x'] }),
      await as('POST', '/ai/chat', { message: 'hello' }),
      await as('DELETE', `/admin/api-keys/${(await listKeys(acme))[0].id}`),
    ];
    expect(refused.map((r) => [r.statusCode, r.json<{ code: string }>().code])).toEqual(Array(4).fill([403, 'AUTH_WRONG_ROLE']));
    expect((await listKeys(acme)).some((k) => k.name === 'escalate')).toBe(false);
  });

  it('revokes a key at once; revoking again keeps the first time; another tenant’s key is 404', async () => {
    const created = await createKey(acme, { name: 'to revoke', role: 'client' });
    expect((await lookup(created.key!)).statusCode).toBe(200);
    const revoked = await t.request({ method: 'DELETE', url: `/admin/api-keys/${created.id}`, headers: op(acme) });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json<KeyBody>()).toMatchObject({ status: 'revoked' });
    const res = await lookup(created.key!);
    expect(res.statusCode).toBe(401);
    expect(res.json<{ code: string }>().code).toBe('AUTH_INVALID_API_KEY');
    const again = await t.request({ method: 'DELETE', url: `/admin/api-keys/${created.id}`, headers: op(acme) });
    expect(again.json<KeyBody>().revokedAt).toBe(revoked.json<KeyBody>().revokedAt);

    const foreign = await createKey(other, { name: 'other tenant', role: 'client' });
    for (const req of [
      { method: 'DELETE' as const, url: `/admin/api-keys/${foreign.id}` },
      { method: 'POST' as const, url: `/admin/api-keys/${foreign.id}/rotate`, payload: {} },
    ]) {
      const refused = await t.request({ ...req, headers: op(acme) });
      expect(refused.statusCode).toBe(404);
      expect(refused.json<{ code: string }>().code).toBe('API_KEY_NOT_FOUND');
    }
    expect((await lookup(foreign.key!)).statusCode).toBe(200);
    expect((await listKeys(acme)).some((k) => k.id === foreign.id)).toBe(false);
    const peek = await t.request({ method: 'GET', url: `/admin/api-keys?tenantId=${other.id}`, headers: op(acme) });
    expect(peek.statusCode).toBe(400);
    expect(peek.json<{ message: string }>().message).toContain('tenantId');
    expect((await t.request({ method: 'DELETE', url: '/admin/api-keys/not-a-uuid', headers: op(acme) })).statusCode).toBe(400);
  });

  it('rotates: the new secret works at once; the old one for the grace period, or not at all with 0', async () => {
    const created = await createKey(acme, { name: 'rotating', role: 'client' });
    const graced = await t.request({ method: 'POST', url: `/admin/api-keys/${created.id}/rotate`, headers: op(acme), payload: { gracePeriodSeconds: 3600 } });
    expect(graced.statusCode).toBe(200);
    const second = graced.json<KeyBody>();
    expect(second.id).toBe(created.id);
    expect(second.key).not.toBe(created.key);
    expect(Date.parse(second.previousSecretValidUntil!) - Date.now()).toBeGreaterThan(3500_000);
    expect((await lookup(created.key!)).statusCode).toBe(200);
    expect((await lookup(second.key!)).statusCode).toBe(200);

    const cut = await t.request({ method: 'POST', url: `/admin/api-keys/${created.id}/rotate`, headers: op(acme), payload: { gracePeriodSeconds: 0 } });
    const third = cut.json<KeyBody>();
    expect(third.previousSecretValidUntil).toBeNull();
    // The first secret was still in its grace period: a second rotation ends it; the second one, with grace 0, too.
    expect((await lookup(created.key!)).statusCode).toBe(401);
    expect((await lookup(second.key!)).statusCode).toBe(401);
    expect((await lookup(third.key!)).statusCode).toBe(200);

    const defaulted = await t.request({ method: 'POST', url: `/admin/api-keys/${created.id}/rotate`, headers: op(acme) });
    expect(defaulted.statusCode).toBe(200);
    expect(Date.parse(defaulted.json<KeyBody>().previousSecretValidUntil!) - Date.now()).toBeGreaterThan(86_000_000);

    for (const gracePeriodSeconds of [-1, 604_801, 1.5, 'soon']) {
      const bad = await t.request({ method: 'POST', url: `/admin/api-keys/${created.id}/rotate`, headers: op(acme), payload: { gracePeriodSeconds } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ message: string }>().message).toContain('gracePeriodSeconds');
    }
    await t.request({ method: 'DELETE', url: `/admin/api-keys/${created.id}`, headers: op(acme) });
    const revoked = await t.request({ method: 'POST', url: `/admin/api-keys/${created.id}/rotate`, headers: op(acme), payload: {} });
    expect(revoked.statusCode).toBe(409);
    expect(revoked.json<{ code: string }>().code).toBe('API_KEY_REVOKED');
  });

  it('refuses an expired key with 401 and says it expired', async () => {
    const soon = await createKey(acme, { name: 'short-lived', role: 'client', expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect((await lookup(soon.key!)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const res = await lookup(soon.key!);
    expect(res.statusCode).toBe(401);
    expect(res.json<{ code: string }>().code).toBe('AUTH_EXPIRED_API_KEY');
    expect((await listKeys(acme)).find((k) => k.id === soon.id)?.status).toBe('expired');
  });

  it('serves a key with allowed origins only from them (and without Origin); a foreign origin is 403 without CORS headers', async () => {
    const widget = (await createKey(acme, { name: 'shop widget', role: 'client', allowedOrigins: [SHOP] })).key!;
    const allowed = await lookup(widget, { origin: SHOP });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(SHOP);
    expect((await lookup(widget)).statusCode).toBe(200);
    const foreign = await lookup(widget, { origin: 'https://evil.example.net' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json<{ code: string }>().code).toBe('ORIGIN_NOT_ALLOWED');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    // A key without allowed origins is served from any origin, as before.
    expect((await lookup(acme.clientKey, { origin: 'https://evil.example.net' })).statusCode).toBe(200);
  });

  it('records when a key was last used in one batched write', async () => {
    const used = await createKey(acme, { name: 'used', role: 'client' });
    await lookup(used.key!);
    await lookup(used.key!);
    expect((await listKeys(acme)).find((k) => k.id === used.id)?.lastUsedAt).toBeNull();
    await t.app.get(TenancyService).flushKeyUsage();
    const lastUsed = (await listKeys(acme)).find((k) => k.id === used.id)?.lastUsedAt;
    expect(Date.now() - Date.parse(lastUsed!)).toBeLessThan(60_000);
  });

  it('says who is calling: an operator or viewer key its own id, name, role and tenant; never another tenant’s', async () => {
    const whoami = (headers: Record<string, string>, query = '') => t.request({ method: 'GET', url: `/admin/api-keys/current${query}`, headers });
    const operatorId = (await listKeys(acme)).find((k) => k.name === 'operator')!.id;
    const asOperator = await whoami(op(acme));
    expect(asOperator.statusCode).toBe(200);
    expect(asOperator.json()).toEqual({ id: operatorId, name: 'operator', role: 'operator', tenantId: acme.id });

    const viewer = await createKey(other, { name: '只读 viewer', role: 'viewer' });
    const asViewer = await whoami({ 'x-api-key': viewer.key! });
    expect(asViewer.statusCode).toBe(200);
    expect(asViewer.json()).toEqual({ id: viewer.id, name: '只读 viewer', role: 'viewer', tenantId: other.id });

    // A key names its own tenant only.
    const peek = await whoami(op(acme), `?tenantId=${other.id}`);
    expect(peek.statusCode).toBe(400);
    expect(peek.json<{ message: string }>().message).toContain('tenantId');
    expect((await whoami(op(acme), `?tenantId=${acme.id}`)).json()).toMatchObject({ tenantId: acme.id, name: 'operator' });

    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    expect((await whoami(admin)).json()).toEqual({ id: null, name: null, role: 'admin', tenantId: null });
    expect((await whoami(admin, `?tenantId=${other.id}`)).json()).toEqual({ id: null, name: null, role: 'admin', tenantId: other.id });

    const client = await whoami({ 'x-api-key': acme.clientKey });
    expect(client.statusCode).toBe(403);
    expect((await whoami({})).statusCode).toBe(401);
    expect((await whoami({ 'x-api-key': 'ak_op_not-a-key' })).statusCode).toBe(401);
    expect((await whoami({ authorization: 'Bearer not-the-token' })).statusCode).toBe(401);
    // A revoked key is no one.
    await t.request({ method: 'DELETE', url: `/admin/api-keys/${viewer.id}`, headers: op(other) });
    expect((await whoami({ 'x-api-key': viewer.key! })).statusCode).toBe(401);
  });

  it('lets the platform admin manage any tenant’s keys, naming it', async () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const missing = await t.request({ method: 'GET', url: '/admin/api-keys', headers: admin });
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ code: string }>().code).toBe('TENANT_ID_REQUIRED');
    const made = await t.request({
      method: 'POST',
      url: `/admin/api-keys?tenantId=${other.id}`,
      headers: admin,
      payload: { name: 'by the admin', role: 'operator' },
    });
    expect(made.statusCode).toBe(201);
    expect((await listKeys(other)).some((k) => k.name === 'by the admin')).toBe(true);
    expect((await listKeys(acme)).some((k) => k.name === 'by the admin')).toBe(false);
    const nobody = await t.request({ method: 'GET', url: '/admin/api-keys?tenantId=00000000-0000-4000-8000-000000000000', headers: admin });
    expect(nobody.statusCode).toBe(404);
    const wrong = await t.request({ method: 'GET', url: `/admin/api-keys?tenantId=${other.id}`, headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.statusCode).toBe(401);
  });
});

/** Revocation on one replica is refused on another within a second (docs/http-edge.md "Keys"). */
describe('API key revocation across replicas (e2e)', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await createTestApp();
    second = await createTestApp({}, first.db);
  }, 240_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('refuses a key revoked on the other replica within one second', async () => {
    const tenant = await first.createTenant();
    const created = await first.request({
      method: 'POST',
      url: '/admin/api-keys',
      headers: { 'x-api-key': tenant.operatorKey },
      payload: { name: 'r', role: 'client' },
    });
    const key = created.json<KeyBody>();
    const viaSecond = () =>
      second.request({ method: 'POST', url: '/ai/knowledge/lookup', headers: { 'x-api-key': key.key! }, payload: { sessionId: 'replicas', query: 'hello' } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await viaSecond()).statusCode).toBe(200);
    await first.request({ method: 'DELETE', url: `/admin/api-keys/${key.id}`, headers: { 'x-api-key': tenant.operatorKey } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await viaSecond()).statusCode).toBe(401);
  });
});
