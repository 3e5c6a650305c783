import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { EvaluationService, SELF_EVALUATE_JOB } from '@arbiter/evaluation';
import { JobsService } from '@arbiter/jobs';
import { FakeOpenAiServer } from '@arbiter/testing';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const TURN = { query: '机械臂报警 E102 怎么处理？', answer: '请检查伺服电机温度，冷却后按复位键。', status: 'SUCCESS', stepCount: 3, toolCallCount: 2 };

interface View {
  id: string;
  selfEvaluation: { confidence: number; reasoning: string; source: string; evaluatedAt: string; model?: string } | null;
}

describe('self-evaluation without an LLM (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;
  const evaluate = (tenant: TestTenant | null, id: string, key: 'operatorKey' | 'clientKey' = 'operatorKey') =>
    t.request({ method: 'POST', url: `/admin/sessions/${id}/evaluate`, headers: tenant ? { 'x-api-key': tenant[key] } : {} });

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant('eval-acme');
    globex = await t.createTenant('eval-globex');
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  it.each([
    [{ stepCount: 3, toolCallCount: 2 }, 80],
    [{ stepCount: 4, toolCallCount: 0 }, 60],
    [{ stepCount: 1, toolCallCount: 9 }, 90],
    [{ status: 'FAILED', answer: undefined, stepCount: 1, toolCallCount: 3 }, 0],
  ])('stores the rule result before the ingest response returns (%j → %i)', async (overrides, confidence) => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': acme.clientKey }, payload: { ...TURN, ...overrides } });
    expect(res.statusCode).toBe(201);
    const view = res.json<View>();
    expect(view.selfEvaluation).toMatchObject({ source: 'rule', confidence, evaluatedAt: expect.any(String) });
    expect(view.selfEvaluation?.reasoning).toMatch(/no LLM is configured/);
    const stored = await t.db.pool.query('SELECT self_evaluation FROM diagnosis_session WHERE id = $1', [view.id]);
    expect(stored.rows[0].self_evaluation).toMatchObject({ source: 'rule', confidence });
  });

  it('POST /admin/sessions/:id/evaluate re-runs it and returns the new selfEvaluation', async () => {
    const id = (await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': acme.clientKey }, payload: TURN })).json<View>().id;
    const res = await evaluate(acme, id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ source: 'rule', confidence: 80, reasoning: expect.stringContaining('base 60') });
  });

  it('answers 404 for a foreign or unknown session, 400 for a bad id, 409 while running, and writes nothing', async () => {
    const id = (await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': acme.clientKey }, payload: TURN })).json<View>().id;
    const before = (await t.db.pool.query('SELECT self_evaluation, updated_at FROM diagnosis_session WHERE id = $1', [id])).rows;
    expect((await evaluate(globex, id)).statusCode).toBe(404);
    expect((await evaluate(acme, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await evaluate(acme, 'not-a-uuid')).statusCode).toBe(400);
    expect((await t.db.pool.query('SELECT self_evaluation, updated_at FROM diagnosis_session WHERE id = $1', [id])).rows).toEqual(before);

    const conv = await t.db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [acme.id]);
    const running = await t.db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, status) VALUES ($1, $2, 'q', 'RUNNING') RETURNING id`,
      [acme.id, conv.rows[0].id],
    );
    expect((await evaluate(acme, running.rows[0].id)).statusCode).toBe(409);
    expect((await t.db.pool.query('SELECT self_evaluation FROM diagnosis_session WHERE id = $1', [running.rows[0].id])).rows[0].self_evaluation).toBeNull();
  });

  it('requires an operator key', async () => {
    const id = (await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': acme.clientKey }, payload: TURN })).json<View>().id;
    expect((await evaluate(null, id)).statusCode).toBe(401);
    expect((await evaluate(acme, id, 'clientKey')).statusCode).toBe(403);
  });
});

describe('self-evaluation with an LLM (e2e, fake OpenAI server)', () => {
  const fake = new FakeOpenAiServer();
  let t: TestApp;
  let acme: TestTenant;
  let jobs: JobsService;

  const ingest = async (payload: Record<string, unknown> = TURN): Promise<View> => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': acme.clientKey }, payload });
    expect(res.statusCode).toBe(201);
    return res.json<View>();
  };
  const view = async (id: string): Promise<View> =>
    (await t.request({ method: 'GET', url: `/api/sessions/${id}`, headers: { 'x-api-key': acme.clientKey } })).json<View>();

  beforeAll(async () => {
    const baseUrl = await fake.start();
    t = await createTestApp({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_MODEL: 'judge-1', LLM_TIMEOUT_MS: '300' });
    acme = await t.createTenant('eval-llm-acme');
    jobs = t.app.get(JobsService);
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
  });

  it('answers the ingest without calling the LLM, then a durable job stores the LLM verdict', async () => {
    const session = await ingest();
    expect(session.selfEvaluation).toBeNull();
    expect(fake.chatRequests()).toHaveLength(0);
    const queued = await t.db.pool.query(`SELECT status, payload FROM job_run WHERE name = $1 AND payload->>'sessionId' = $2`, [SELF_EVALUATE_JOB, session.id]);
    expect(queued.rows).toEqual([{ status: 'queued', payload: { sessionId: session.id } }]);

    fake.replyWith('{"confidence": 88, "reasoning": "The answer follows the servo alarm manual cited in step 2."}');
    await jobs.runPending();
    expect((await view(session.id)).selfEvaluation).toMatchObject({ source: 'llm', confidence: 88, model: 'judge-1' });
    expect(JSON.stringify(fake.chatRequests()[0].messages)).toContain(TURN.answer);
  });

  it('stores the rule fallback when the LLM answers garbage, retries with backoff, and the retry method upgrades it later', async () => {
    const session = await ingest();
    fake.enqueueChat({ kind: 'content', content: '{"confidence": 250, "reasoning": "x"}' });
    await jobs.runPending();
    const fallback = (await view(session.id)).selfEvaluation;
    expect(fallback).toMatchObject({ source: 'rule', confidence: 80 });
    expect(fallback?.reasoning).toMatch(/confidence 250 is outside 0-100/);
    const run = await t.db.pool.query(`SELECT status, attempts, run_after > now() AS later FROM job_run WHERE payload->>'sessionId' = $1`, [session.id]);
    expect(run.rows[0]).toMatchObject({ status: 'queued', attempts: 1, later: true });

    fake.setChatHandler(() => ({ kind: 'content', content: '{"confidence": 64, "reasoning": "Partly supported by the manual."}' }));
    const result = await t.app.get(EvaluationService).retryRuleFallbacks(asTenantId(acme.id));
    expect(result.upgraded).toBeGreaterThanOrEqual(1);
    expect((await view(session.id)).selfEvaluation).toMatchObject({ source: 'llm', confidence: 64 });
  });

  it('re-evaluates inline on demand and falls back to the rules on an LLM timeout', async () => {
    const session = await ingest({ ...TURN, stepCount: 5, toolCallCount: 1 });
    fake.enqueueChat({ kind: 'content', content: '{"confidence": 90, "reasoning": "late"}', delayMs: 3_000 });
    const started = Date.now();
    const res = await t.request({ method: 'POST', url: `/admin/sessions/${session.id}/evaluate`, headers: { 'x-api-key': acme.operatorKey } });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ source: 'rule', confidence: 65, reasoning: expect.stringContaining('did not answer in time') });
  });
});
