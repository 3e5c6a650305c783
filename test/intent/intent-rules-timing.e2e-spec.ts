import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { POWER_RULE, RESET_RULE } from './intent-rule-fixtures.js';

interface RouteBody {
  finalIntent: string | null;
  routeTrace: { ruleMatch: { intent: string; matchType: string; score: number; durationMs: number } | null };
}

/**
 * The cases of intent-rules.e2e-spec.ts that measure time (a route's duration, /health latency while an evaluation
 * runs): a serial e2e file of their own (jest.config.js PARALLEL_E2E), so a neighbour's CPU never moves what they measure.
 */
describe('intent rules: what routing and evaluation cost in time (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const create = (tenant: TestTenant, payload: object) => t.request({ method: 'POST', url: '/admin/intent-rules', headers: op(tenant), payload });
  const routeBody = async (tenant: TestTenant, message: string): Promise<RouteBody> => {
    const res = await t.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': tenant.clientKey }, payload: { message } });
    expect(res.statusCode).toBe(200);
    return res.json<RouteBody>();
  };

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    for (const rule of [RESET_RULE, POWER_RULE]) expect((await create(acme, rule)).statusCode).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('accepts the catastrophic (a+)+$ because RE2 matches it in linear time', async () => {
    const tenant = await t.createTenant();
    expect((await create(tenant, { intent: 'redos', patterns: ['(a+)+$'] })).statusCode).toBe(201);
    const started = performance.now();
    const miss = await routeBody(tenant, `${'a'.repeat(30)}!`);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(miss.routeTrace.ruleMatch).toBeNull();
    expect(miss.finalIntent).toBeNull();
    const longMiss = await routeBody(tenant, `${'a'.repeat(3_999)}!`);
    expect(longMiss.routeTrace.ruleMatch).toBeNull();
    const hit = await routeBody(tenant, 'a'.repeat(30));
    expect(hit.routeTrace.ruleMatch).toMatchObject({ intent: 'redos', matchType: 'regex', score: 1 });
    expect(hit.routeTrace.ruleMatch?.durationMs).toBeLessThan(50);
  });

  it('5,000 examples do not hold the event loop: /health answers meanwhile (p95 ≤ 100 ms, no pause over 300 ms; it was one 1.8 s pause)', async () => {
    const texts = ['reset the robot arm', 'power is off', 'how do I calibrate the touch screen', 'reset please', 'the unit has no power'];
    const examples = Array.from({ length: 5_000 }, (_, i) => ({
      text: `${texts[i % texts.length]} ${i}`,
      intent: i % 5 === 2 ? null : i % 2 ? 'power' : 'reset',
    }));
    // The tenant's router is compiled first: compiling (TF-IDF fit) still runs on the API's thread once
    // per rule change — a separate, known cost (README, Benchmarks); this test is about the 5,000 examples.
    await routeBody(acme, 'reset the robot arm');
    let done = false;
    const evaluation = t
      .request({ method: 'POST', url: '/admin/intent-rules/evaluate', headers: op(acme), payload: { examples } })
      .finally(() => (done = true));
    const latencies: number[] = [];
    let due = performance.now();
    while (!done) {
      expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      latencies.push(performance.now() - due);
      due = performance.now() + 10;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const res = await evaluation;
    expect(res.statusCode).toBe(200);
    expect(res.json<{ total: number }>().total).toBe(5_000);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)]!;
    process.stdout.write(
      `/health during a 5,000-example evaluation: ${latencies.length} polls, p99 ${p99.toFixed(1)} / max ${latencies.at(-1)!.toFixed(1)} ms\n`,
    );
    expect(latencies.length).toBeGreaterThan(5);
    expect(latencies[Math.floor(latencies.length * 0.95)]!).toBeLessThanOrEqual(100);
    expect(latencies.at(-1)!).toBeLessThanOrEqual(300);
  });
});
