import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeOpenAiServer } from '@arbiter/testing';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Issue 11: upstream failures reach clients as their kind, never the upstream body, host or port. */
describe('faults: client-safe upstream errors (e2e, fake OpenAI server)', () => {
  const fake = new FakeOpenAiServer();
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    const baseUrl = await fake.start();
    t = await createTestApp({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_MODEL: 'judge-1', LLM_TIMEOUT_MS: '5000' });
    tenant = await t.createTenant();
    const op = { 'x-api-key': tenant.operatorKey };
    for (const rule of [
      { intent: 'reset', keywords: ['reset'], semanticExamples: ['how do I reset the robot arm', 'the arm needs a reset'] },
      { intent: 'power', keywords: ['power supply'], semanticExamples: ['the arm does not power on', 'no power to the controller'] },
    ]) {
      expect((await t.request({ method: 'POST', url: '/admin/intent-rules', headers: op, payload: rule })).statusCode).toBe(201);
    }
    // Every semantic-only request lands in the gray zone, so the judge runs.
    const config = { semanticThreshold: 1, grayZoneThreshold: 1, minTriggerThreshold: 0, llmJudgeTimeoutMs: 5_000, semanticMatcherTimeoutMs: 5_000 };
    expect((await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op, payload: config })).statusCode).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    await fake.stop();
  });

  it('a failing judge shows as "upstream HTTP 500" in the route trace, without the upstream body or its host', async () => {
    fake.enqueueChat({ kind: 'error', status: 500, message: 'db at 10.9.8.7:6543 refused user arbiter_internal' });
    const res = await t.request({
      method: 'POST',
      url: '/ai/intent/route',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { message: 'the arm does not power on' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ routeTrace: { llmJudge: { triggered: boolean; error?: string } } }>();
    expect(body.routeTrace.llmJudge).toMatchObject({ triggered: true, error: 'upstream HTTP 500' });
    expect(res.body).not.toMatch(/10\.9\.8\.7|6543|arbiter_internal/);
    expect(res.body).not.toContain(fake.baseUrl.replace(/\/v1$/, ''));
  });
});
