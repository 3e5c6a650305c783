import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface RouteBody {
  finalIntent: string | null;
  routeTrace: { semanticMatch: { skipped?: string } };
}

/** Two app instances on one database: a write on one is used by the other within 1 s (version polling). */
describe('intent router cache across replicas (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: TestTenant;
  const op = () => ({ 'x-api-key': tenant.operatorKey });
  const routeOn = async (app: TestApp, message: string): Promise<RouteBody> => {
    const res = await app.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': tenant.clientKey }, payload: { message } });
    expect(res.statusCode).toBe(200);
    return res.json<RouteBody>();
  };
  /** Polls `app` until `check` holds; returns the elapsed milliseconds (fails after 1 s). */
  const within1s = async (app: TestApp, message: string, check: (b: RouteBody) => boolean): Promise<number> => {
    const started = performance.now();
    for (;;) {
      const body = await routeOn(app, message);
      const elapsed = performance.now() - started;
      if (check(body)) return elapsed;
      if (elapsed > 1_000) throw new Error(`not visible after ${Math.round(elapsed)} ms: ${JSON.stringify(body)}`);
      await sleep(25);
    }
  };

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({}, a.db);
    tenant = await a.createTenant();
  }, 240_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a rule created, updated and deleted on A is used by B within 1 s', async () => {
    // B caches the tenant's (empty) router first.
    expect((await routeOn(b, 'switchword please')).finalIntent).toBeNull();
    const created = await a.request({ method: 'POST', url: '/admin/intent-rules', headers: op(), payload: { intent: 'first', keywords: ['switchword'] } });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: string }>().id;
    expect(await within1s(b, 'switchword please', (r) => r.finalIntent === 'first')).toBeLessThan(1_000);

    const patched = await a.request({ method: 'PATCH', url: `/admin/intent-rules/${id}`, headers: op(), payload: { intent: 'second' } });
    expect(patched.statusCode).toBe(200);
    expect(await within1s(b, 'switchword please', (r) => r.finalIntent === 'second')).toBeLessThan(1_000);

    expect((await a.request({ method: 'DELETE', url: `/admin/intent-rules/${id}`, headers: op() })).statusCode).toBe(204);
    expect(await within1s(b, 'switchword please', (r) => r.finalIntent === null)).toBeLessThan(1_000);
  });

  it('a config change on B is used by A within 1 s', async () => {
    await a.request({ method: 'PUT', url: '/admin/intent-config', headers: op(), payload: { semanticMatcherTimeoutMs: 2_000 } });
    await a.request({
      method: 'POST',
      url: '/admin/intent-rules',
      headers: op(),
      payload: { intent: 'power', semanticExamples: ['the arm does not power on', 'no power'] },
    });
    expect((await routeOn(a, 'the arm has no power')).routeTrace.semanticMatch.skipped).toBeUndefined();
    const put = await b.request({ method: 'PUT', url: '/admin/intent-config', headers: op(), payload: { semanticMatcherEnabled: false } });
    expect(put.statusCode).toBe(200);
    expect(await within1s(a, 'the arm has no power', (r) => r.routeTrace.semanticMatch.skipped === 'disabled')).toBeLessThan(1_000);
    await b.request({ method: 'PUT', url: '/admin/intent-config', headers: op(), payload: { semanticMatcherEnabled: true } });
    expect(await within1s(a, 'the arm has no power', (r) => r.routeTrace.semanticMatch.skipped === undefined)).toBeLessThan(1_000);
  });
});
