import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from '../support/test-app.js';

// How the API serves the built console (apps/api/src/console-static.ts, docs/console.md "Serving"), on a
// stand-in build so this runs without Vite; the real build is exercised by the browser suite.
describe('console static serving (e2e)', () => {
  const built = mkdtempSync(path.join(os.tmpdir(), 'arbiter-console-built-'));
  const empty = mkdtempSync(path.join(os.tmpdir(), 'arbiter-console-empty-'));
  const script = 'console.log("console");'.repeat(50);
  let app: TestApp;
  let unbuilt: TestApp;

  beforeAll(async () => {
    mkdirSync(path.join(built, 'assets'));
    writeFileSync(path.join(built, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/console/assets/index-abc123.js"></script>');
    writeFileSync(path.join(built, 'assets', 'index-abc123.js'), script);
    writeFileSync(path.join(built, 'assets', 'index-abc123.js.gz'), gzipSync(script));
    app = await createTestApp({ CONSOLE_DIR: built });
    unbuilt = await createTestApp({ CONSOLE_DIR: empty }, app.db);
  });

  afterAll(async () => {
    await unbuilt.close();
    await app.close();
    rmSync(built, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  });

  it('/console redirects to /console/, which serves index.html uncached with a CSP', async () => {
    const redirect = await app.request({ method: 'GET', url: '/console' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/console/');
    const index = await app.request({ method: 'GET', url: '/console/' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toContain('text/html');
    expect(index.body).toContain('<div id="root">');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('hashed assets are immutable and served pre-compressed to a client that accepts gzip', async () => {
    const gzipped = await app.request({ method: 'GET', url: '/console/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.statusCode).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gzipped.rawPayload.length).toBeLessThan(script.length);
    const plain = await app.request({ method: 'GET', url: '/console/assets/index-abc123.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('an unknown asset is a 404 and a path escaping the folder serves nothing outside it', async () => {
    expect((await app.request({ method: 'GET', url: '/console/assets/nope.js' })).statusCode).toBe(404);
    const escape = await app.request({ method: 'GET', url: '/console/..%2f..%2fpackage.json' });
    expect(escape.statusCode).toBeGreaterThanOrEqual(400);
    expect(escape.body).not.toContain('"workspaces"');
  });

  it('without a build, /console answers 404 naming the command that builds it, in the API error shape', async () => {
    for (const url of ['/console', '/console/', '/console/assets/x.js']) {
      const res = await unbuilt.request({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({
        statusCode: 404,
        message: expect.stringContaining('npm run build') as unknown,
        requestId: expect.any(String) as unknown,
      });
    }
  });

  it('the API itself is unaffected: /health and the tenant endpoints answer as before', async () => {
    expect((await app.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await app.request({ method: 'GET', url: '/admin/jobs' })).statusCode).toBe(401);
  });
});
