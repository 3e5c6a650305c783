import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const VALID = {
  query: '机械臂报警 E201 怎么处理？',
  answer: '请检查伺服驱动器的电源并重启控制柜。',
  status: 'SUCCESS',
  stepCount: 3,
  toolCallCount: 2,
  references: [{ documentId: 'doc-1', filePath: 'manuals/servo.md', title: 'Servo alarms', score: 0.82 }],
  media: [{ type: 'image', url: 'https://cdn.example.com/a.png' }],
};

describe('sessions API (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;

  const post = (tenant: TestTenant, payload: unknown, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey, ...headers }, payload: payload as Record<string, unknown> });
  const count = async (table: string) => (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant('sessions-acme');
    globex = await t.createTenant('sessions-globex');
  });
  afterAll(async () => {
    await t.close();
  });

  it('ingests a finished turn and returns the Session view', async () => {
    const res = await post(acme, VALID);
    expect(res.statusCode).toBe(201);
    const view = res.json<Record<string, unknown>>();
    expect(view).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      channel: 'web',
      query: VALID.query,
      answer: VALID.answer,
      status: 'SUCCESS',
      intent: null,
      stepCount: 3,
      toolCallCount: 2,
      references: VALID.references,
      media: VALID.media,
      knowledgeSearched: true,
      feedback: null,
    });
    for (const key of ['selfEvaluation', 'coverage', 'createdAt', 'updatedAt']) expect(view).toHaveProperty(key);
  });

  it('reads a session back by id, and continues its conversation', async () => {
    const first = (await post(acme, VALID)).json<{ id: string; conversationId: string }>();
    const got = await t.request({ method: 'GET', url: `/api/sessions/${first.id}`, headers: { 'x-api-key': acme.clientKey } });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ id: first.id, query: VALID.query });
    const next = await post(acme, { ...VALID, conversationId: first.conversationId, query: 'and then?' });
    expect(next.statusCode).toBe(201);
    expect(next.json()).toMatchObject({ conversationId: first.conversationId });
  });

  it('defaults knowledgeSearched to false without references, and accepts FAILED without an answer', async () => {
    const res = await post(acme, { query: 'hello', status: 'FAILED' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'FAILED', answer: null, knowledgeSearched: false, references: [], media: [], stepCount: 0 });
  });

  it('normalises media types at ingest (trimmed, lower-case), stores them so, and the coverage image rule sees them', async () => {
    const res = await post(acme, {
      query: '这张照片里的报警灯是什么意思',
      answer: '图片中是伺服报警灯。',
      status: 'SUCCESS',
      media: [{ type: ' IMAGE ' }, { type: 'Audio', url: 'https://cdn.example.com/a.mp3' }],
    });
    expect(res.statusCode).toBe(201);
    const view = res.json<{ id: string; media: unknown; coverage: { reasonCode: string } | null }>();
    expect(view.media).toEqual([{ type: 'image' }, { type: 'audio', url: 'https://cdn.example.com/a.mp3' }]);
    expect(view.coverage).toMatchObject({ verdict: 'covered', reasonCode: 'covered_visual_recognition' });
    const stored = await t.db.pool.query<{ media: unknown }>('SELECT media FROM diagnosis_session WHERE id = $1', [view.id]);
    expect(stored.rows[0]!.media).toEqual([{ type: 'image' }, { type: 'audio', url: 'https://cdn.example.com/a.mp3' }]);
  });

  it('an operator key may call client endpoints', async () => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': acme.operatorKey }, payload: VALID });
    expect(res.statusCode).toBe(201);
  });

  it("never shows one tenant's session to another (404, not 403)", async () => {
    const mine = (await post(acme, VALID)).json<{ id: string; conversationId: string }>();
    const foreign = await t.request({ method: 'GET', url: `/api/sessions/${mine.id}`, headers: { 'x-api-key': globex.clientKey } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain(VALID.query);
    const before = await count('diagnosis_session');
    const intoForeignConversation = await post(globex, { ...VALID, conversationId: mine.conversationId });
    expect(intoForeignConversation.statusCode).toBe(404);
    expect(await count('diagnosis_session')).toBe(before);
  });

  describe('bad input: 4xx naming the problem, nothing written', () => {
    const cases: [string, unknown, string[]][] = [
      ['unknown field', { ...VALID, surprise: 1 }, ['surprise']],
      ['missing query', { status: 'SUCCESS' }, ['query']],
      ['empty query', { ...VALID, query: '' }, ['query']],
      ['wrong type', { ...VALID, stepCount: 'three' }, ['stepCount']],
      ['negative count', { ...VALID, toolCallCount: -1 }, ['toolCallCount']],
      ['bad status enum', { ...VALID, status: 'DONE' }, ['status']],
      ['ingest may not claim BAD_CASE', { ...VALID, status: 'BAD_CASE' }, ['status']],
      ['query over 20,000 chars', { ...VALID, query: 'x'.repeat(20_001) }, ['query']],
      ['answer over 20,000 chars', { ...VALID, answer: 'x'.repeat(20_001) }, ['answer']],
      ['non-uuid conversationId', { ...VALID, conversationId: '42' }, ['conversationId']],
      ['reference without score', { ...VALID, references: [{ filePath: 'a.md' }] }, ['references[0].score']],
      ['unknown media type', { ...VALID, media: [{ type: 'hologram' }] }, ['media[0].type']],
      ['unknown media type after trimming', { ...VALID, media: [{ type: ' IMAGE/PNG ' }] }, ['media[0].type']],
      ['bad channel', { ...VALID, channel: 'web chat!' }, ['channel']],
    ];
    it.each(cases)('%s → 400', async (_label, payload, fields) => {
      const before = await count('diagnosis_session');
      const res = await post(acme, payload);
      expect(res.statusCode).toBe(400);
      const body = res.json<{ statusCode: number; error: string; message: string; details: { fields: string[] }; requestId: string }>();
      expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', requestId: expect.any(String) });
      expect(body.details.fields).toEqual(expect.arrayContaining(fields));
      expect(await count('diagnosis_session')).toBe(before);
    });

    it('malformed JSON → 400', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/sessions',
        headers: { 'x-api-key': acme.clientKey, 'content-type': 'application/json' },
        payload: '{"query": "x",',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(/JSON/);
    });

    it('body over 1 MiB → 413', async () => {
      const before = await count('diagnosis_session');
      const res = await post(acme, { ...VALID, answer: 'x'.repeat(1_100_000) });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
      expect(await count('diagnosis_session')).toBe(before);
    });

    it('non-UUID session id → 400', async () => {
      const res = await t.request({ method: 'GET', url: '/api/sessions/123', headers: { 'x-api-key': acme.clientKey } });
      expect(res.statusCode).toBe(400);
    });

    it('unknown session → 404', async () => {
      const res = await t.request({ method: 'GET', url: '/api/sessions/3f2b7c1e-9a4d-4e8b-8c2a-1b2c3d4e5f60', headers: { 'x-api-key': acme.clientKey } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    });

    it('missing key → 401 and nothing written', async () => {
      const before = await count('diagnosis_session');
      const res = await t.request({ method: 'POST', url: '/api/sessions', payload: VALID });
      expect(res.statusCode).toBe(401);
      expect(await count('diagnosis_session')).toBe(before);
    });
  });
});
