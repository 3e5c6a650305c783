import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { JobsService } from '@arbiter/jobs';
import { FakeOpenAiServer } from '@arbiter/testing';
import { createTestApp } from '../support/test-app.js';

/**
 * A FAILED run marked not useful becomes BAD_CASE (review queue) but stays a failed run: docs/spec/evaluation.md §1
 * scores it 0 and assesses only successful runs; docs/spec/coverage.md covers succeeded turns only. The run's
 * outcome is kept apart from the feedback state (`diagnosis_session.outcome`).
 */
const FAILED_TURN = {
  query: '机械臂报警 E102 怎么处理？',
  answer: '抱歉，处理您的问题时出现了异常，请稍后再试。',
  status: 'FAILED',
  stepCount: 1,
  toolCallCount: 1,
};
const GOOD_TURN = {
  ...FAILED_TURN,
  answer: '请检查伺服电机温度，冷却后按复位键。',
  status: 'SUCCESS',
  references: [{ filePath: 'faults/e102.md', score: 0.8 }],
};

interface View {
  id: string;
  status: string;
  outcome: string | null;
  selfEvaluation: { confidence: number; source: string; reasoning: string } | null;
  coverage: { reasonCode: string } | null;
}

async function setup(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  const tenant = await t.createTenant('failed-runs');
  const headers = { client: { 'x-api-key': tenant.clientKey }, operator: { 'x-api-key': tenant.operatorKey } };
  const ingest = async (payload: Record<string, unknown>): Promise<View> => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: headers.client, payload });
    expect(res.statusCode).toBe(201);
    return res.json<View>();
  };
  const notUseful = async (sessionId: string): Promise<void> => {
    const res = await t.request({ method: 'POST', url: '/api/feedback', headers: headers.client, payload: { sessionId, feedback: 'not_useful' } });
    expect([res.statusCode, res.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
  };
  const view = async (id: string): Promise<View> => (await t.request({ method: 'GET', url: `/api/sessions/${id}`, headers: headers.client })).json<View>();
  const evaluate = async (id: string) => {
    const res = await t.request({ method: 'POST', url: `/admin/sessions/${id}/evaluate`, headers: headers.operator });
    expect(res.statusCode).toBe(200);
    return res.json<{ confidence: number; source: string; reasoning: string }>();
  };
  return { t, tenant, headers, ingest, notUseful, view, evaluate };
}

describe('a FAILED run marked not useful stays a failed run (e2e)', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup();
  }, 180_000);
  afterAll(async () => {
    await s?.t.close();
  });

  it('keeps outcome FAILED under status BAD_CASE, re-evaluates it as 0 (not 75), and the coverage backfill skips it', async () => {
    const failed = await s.ingest(FAILED_TURN);
    expect(failed).toMatchObject({ status: 'FAILED', outcome: 'FAILED', selfEvaluation: { source: 'rule', confidence: 0 }, coverage: null });
    await s.notUseful(failed.id);
    expect(await s.view(failed.id)).toMatchObject({ status: 'BAD_CASE', outcome: 'FAILED' });

    // A successful run marked not useful, for contrast: BAD_CASE, outcome SUCCESS, rule score 75.
    const good = await s.ingest(GOOD_TURN);
    await s.notUseful(good.id);

    expect(await s.evaluate(failed.id)).toMatchObject({ source: 'rule', confidence: 0, reasoning: expect.stringContaining('status FAILED → 0') });
    expect(await s.evaluate(good.id)).toMatchObject({ source: 'rule', confidence: 75 });

    // Drop the decisions and let the backfill decide again: only the succeeded turn is decided.
    await s.t.db.pool.query('DELETE FROM coverage_decision WHERE tenant_id = $1', [s.tenant.id]);
    const res = await s.t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: s.headers.operator, payload: {} });
    expect(res.statusCode).toBe(202);
    await s.t.app.get(JobsService).runPending();
    const job = await s.t.request({ method: 'GET', url: `/admin/jobs/${res.json<{ jobId: string }>().jobId}`, headers: s.headers.operator });
    expect(job.json()).toMatchObject({ status: 'succeeded', processed: 1, failed: 0, details: { decided: 1, rejected: 0 } });
    expect((await s.view(failed.id)).coverage).toBeNull();
    expect((await s.view(good.id)).coverage).toMatchObject({ reasonCode: 'covered_has_references' });
    const report = await s.t.request({ method: 'GET', url: '/admin/coverage/report', headers: s.headers.operator });
    expect(report.json()).toMatchObject({ total: 1, covered: 1 });
  });
});

describe('with an LLM configured, FAILED runs get no LLM score (e2e, fake OpenAI server)', () => {
  const fake = new FakeOpenAiServer();
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    const baseUrl = await fake.start();
    s = await setup({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_MODEL: 'judge-1', LLM_TIMEOUT_MS: '2000' });
  }, 180_000);
  afterAll(async () => {
    await s?.t.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
    fake.setChatHandler(() => ({ kind: 'content', content: '{"confidence": 91, "reasoning": "looks fine"}' }));
  });

  it('scores a FAILED run 0 by the rules at ingest, on re-evaluation and once it is BAD_CASE, never asking the LLM', async () => {
    const failed = await s.ingest(FAILED_TURN);
    expect(failed.selfEvaluation).toMatchObject({ source: 'rule', confidence: 0 });
    expect(failed.selfEvaluation?.reasoning).toMatch(/the run failed/);
    await s.t.app.get(JobsService).runPending();
    expect(await s.evaluate(failed.id)).toMatchObject({ source: 'rule', confidence: 0 });
    await s.notUseful(failed.id);
    expect(await s.evaluate(failed.id)).toMatchObject({ source: 'rule', confidence: 0 });
    expect((await s.view(failed.id)).selfEvaluation).toMatchObject({ source: 'rule', confidence: 0 });
    expect(fake.chatRequests()).toHaveLength(0);

    // a successful run is still assessed by the LLM
    const good = await s.ingest(GOOD_TURN);
    await s.t.app.get(JobsService).runPending();
    expect((await s.view(good.id)).selfEvaluation).toMatchObject({ source: 'llm', confidence: 91 });
  });
});
