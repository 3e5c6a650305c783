import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const WIDGET = 'https://shop.example.com';
const preflight = (url: string, origin = WIDGET, headers = 'x-api-key, content-type') => ({
  method: 'OPTIONS' as const,
  url,
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
});

/** Issue 24 item 6: browsers may call the client routes from a customer's own site (docs/http-edge.md "CORS"). */
describe('CORS on the client routes (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it.each(['/ai/chat', '/ai/knowledge/lookup', '/ai/intent/route', '/api/feedback', '/api/sessions', '/v1/chat/completions'])(
    'answers the preflight of %s without a key, for any origin',
    async (url) => {
      const res = await t.request(preflight(url));
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(WIDGET);
      expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
      expect(
        String(res.headers['access-control-allow-headers'])
          .toLowerCase()
          .split(',')
          .map((h) => h.trim()),
      ).toEqual(expect.arrayContaining(['x-api-key', 'authorization', 'content-type', 'accept', 'idempotency-key', 'x-request-id', 'x-conversation-id']));
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(res.headers.vary)).toContain('Origin');
    },
  );

  it('puts the CORS headers on answers and on errors of a client route, so a widget can read them', async () => {
    const ok = await t.request({ method: 'POST', url: '/ai/chat', headers: { origin: WIDGET, 'x-api-key': acme.clientKey }, payload: { message: '你好' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(WIDGET);
    expect(String(ok.headers['access-control-expose-headers']).toLowerCase()).toContain('x-request-id');
    expect(String(ok.headers['access-control-expose-headers']).toLowerCase()).toContain('retry-after');
    const denied = await t.request({ method: 'POST', url: '/ai/chat', headers: { origin: WIDGET, 'x-api-key': 'wrong' }, payload: { message: '你好' } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe(WIDGET);
    const invalid = await t.request({ method: 'POST', url: '/ai/chat', headers: { origin: WIDGET, 'x-api-key': acme.clientKey }, payload: { message: 42 } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['access-control-allow-origin']).toBe(WIDGET);
  });

  it('gives no CORS to the admin API and the console (same-origin only)', async () => {
    const pre = await t.request(preflight('/admin/tenants'));
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.statusCode).toBe(404);
    const admin = await t.request({ method: 'GET', url: '/admin/knowledge/documents', headers: { origin: WIDGET, 'x-api-key': acme.operatorKey } });
    expect(admin.statusCode).toBe(200);
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a malformed preflight (no Access-Control-Request-Method) with 400', async () => {
    const res = await t.request({ method: 'OPTIONS', url: '/ai/chat', headers: { origin: WIDGET } });
    expect(res.statusCode).toBe(400);
  });
});

describe('CORS_ORIGINS narrows the origins (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ CORS_ORIGINS: `${WIDGET}, https://help.example.org:8443` });
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('allows the listed origins and no other', async () => {
    expect((await t.request(preflight('/ai/chat'))).headers['access-control-allow-origin']).toBe(WIDGET);
    expect((await t.request(preflight('/ai/chat', 'https://help.example.org:8443'))).headers['access-control-allow-origin']).toBe(
      'https://help.example.org:8443',
    );
    const other = await t.request(preflight('/ai/chat', 'https://evil.example.net'));
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
