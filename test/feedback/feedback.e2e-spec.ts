import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const TURN = {
  query: '机械臂报警 E102 怎么处理？',
  answer: '请检查伺服电机温度，冷却后按复位键。',
  status: 'SUCCESS',
  stepCount: 2,
  toolCallCount: 1,
  references: [{ filePath: 'manuals/servo.md', title: '伺服报警', score: 0.8 }],
};

interface FeedbackResult {
  sessionId: string;
  feedback: string;
  status: string;
  caseId: string | null;
}

describe('feedback, bad cases and case library (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;

  const ingest = async (tenant: TestTenant, overrides: Record<string, unknown> = {}): Promise<string> => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey }, payload: { ...TURN, ...overrides } });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const feedback = (tenant: TestTenant, payload: Record<string, unknown>, key: 'clientKey' | 'operatorKey' = 'clientKey') =>
    t.request({ method: 'POST', url: '/api/feedback', headers: { 'x-api-key': tenant[key] }, payload });
  const admin = (tenant: TestTenant, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
    t.request({ method, url, headers: { 'x-api-key': tenant.operatorKey }, ...(payload ? { payload } : {}) });
  const snapshot = async () => {
    const q = async (sql: string) => (await t.db.pool.query(sql)).rows;
    return {
      sessions: await q('SELECT id, status, feedback, updated_at FROM diagnosis_session ORDER BY id'),
      feedback: await q('SELECT * FROM session_feedback ORDER BY id'),
      cases: await q('SELECT * FROM case_library ORDER BY id'),
    };
  };

  beforeAll(async () => {
    // A pool wide enough for the 50-concurrent test: posts queue on the session's row lock, not on the pool's 5 s acquire timeout.
    t = await createTestApp({ DB_POOL_MAX: '16' });
    acme = await t.createTenant('feedback-acme');
    globex = await t.createTenant('feedback-globex');
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  it('useful → one AUTO case from the session; the session view shows the feedback', async () => {
    const id = await ingest(acme);
    const res = await feedback(acme, { sessionId: id, feedback: 'useful' });
    expect(res.statusCode).toBe(200);
    const body = res.json<FeedbackResult>();
    expect(body).toEqual({ sessionId: id, feedback: 'useful', status: 'SUCCESS', caseId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const view = await t.request({ method: 'GET', url: `/api/sessions/${id}`, headers: { 'x-api-key': acme.clientKey } });
    expect(view.json()).toMatchObject({ feedback: 'useful', status: 'SUCCESS' });
    const cases = (await admin(acme, 'GET', '/admin/case-library')).json<{ items: Record<string, unknown>[] }>();
    expect(cases.items.find((c) => c.id === body.caseId)).toMatchObject({
      sessionId: id,
      query: TURN.query,
      answer: TURN.answer,
      faultCategory: 'GENERAL',
      errorCode: null,
      sourceType: 'AUTO',
    });
  });

  it('not_useful → BAD_CASE in the review queue with comment, answer, self-evaluation; flipping back restores', async () => {
    const id = await ingest(acme);
    expect((await feedback(acme, { sessionId: id, feedback: 'useful' })).json<FeedbackResult>().caseId).not.toBeNull();
    const bad = await feedback(acme, { sessionId: id, feedback: 'not_useful', comment: '答非所问：E102 不是温度报警' });
    expect(bad.statusCode).toBe(200);
    expect(bad.json()).toEqual({ sessionId: id, feedback: 'not_useful', status: 'BAD_CASE', caseId: null });

    const queue = (await admin(acme, 'GET', '/admin/bad-cases')).json<{ items: Record<string, unknown>[]; nextCursor: string | null }>();
    expect(queue.items[0]).toMatchObject({
      sessionId: id,
      comment: '答非所问：E102 不是温度报警',
      answer: TURN.answer,
      query: TURN.query,
      selfEvaluation: { source: 'rule', confidence: 75 },
      routeSummary: null,
    });
    const library = (await admin(acme, 'GET', '/admin/case-library')).json<{ items: { sessionId: string }[] }>();
    expect(library.items.map((c) => c.sessionId)).not.toContain(id);

    const back = (await feedback(acme, { sessionId: id, feedback: 'useful' })).json<FeedbackResult>();
    expect(back).toMatchObject({ status: 'SUCCESS', feedback: 'useful' });
    const queueAfter = (await admin(acme, 'GET', '/admin/bad-cases')).json<{ items: { sessionId: string }[] }>();
    expect(queueAfter.items.map((c) => c.sessionId)).not.toContain(id);
    const rows = await t.db.pool.query('SELECT count(*)::int AS n FROM case_library WHERE session_id = $1', [id]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('repeats are idempotent', async () => {
    const id = await ingest(acme);
    const a = (await feedback(acme, { sessionId: id, feedback: 'useful' })).json<FeedbackResult>();
    const before = await snapshot();
    const b = (await feedback(acme, { sessionId: id, feedback: 'useful' })).json<FeedbackResult>();
    expect(b).toEqual(a);
    expect(await snapshot()).toEqual(before);
  });

  it('50 concurrent posts on one session leave exactly one consistent outcome', async () => {
    const id = await ingest(acme);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => feedback(acme, { sessionId: id, feedback: i % 2 ? 'useful' : 'not_useful' })));
    expect(results.map((r) => r.statusCode).every((s) => s === 200)).toBe(true);
    const session = (await t.db.pool.query('SELECT status, feedback FROM diagnosis_session WHERE id = $1', [id])).rows[0];
    const cases = (await t.db.pool.query('SELECT retracted_at FROM case_library WHERE session_id = $1', [id])).rows;
    const fb = (await t.db.pool.query('SELECT feedback FROM session_feedback WHERE session_id = $1', [id])).rows;
    expect(cases.length).toBe(1);
    expect(fb).toEqual([{ feedback: session.feedback }]);
    if (session.feedback === 'useful') expect([session.status, cases[0].retracted_at]).toEqual(['SUCCESS', null]);
    else expect([session.status, cases[0].retracted_at === null]).toEqual(['BAD_CASE', false]);

    const same = await ingest(acme);
    await Promise.all(Array.from({ length: 50 }, () => feedback(acme, { sessionId: same, feedback: 'useful' })));
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM case_library WHERE session_id = $1 AND retracted_at IS NULL', [same])).rows[0].n).toBe(1);
  });

  describe('bad input writes nothing', () => {
    let id: string;
    let failed: string;
    let running: string;
    let foreign: string;
    beforeAll(async () => {
      id = await ingest(acme);
      failed = await ingest(acme, { status: 'FAILED', answer: undefined });
      foreign = await ingest(globex);
      const conv = await t.db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [acme.id]);
      running = (
        await t.db.pool.query<{ id: string }>(
          `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, status) VALUES ($1, $2, 'q', 'RUNNING') RETURNING id`,
          [acme.id, conv.rows[0].id],
        )
      ).rows[0].id;
    });

    it.each([
      ['an invalid feedback value', 400, 'feedback', () => ({ sessionId: id, feedback: 'meh' })],
      ['a missing feedback', 400, 'feedback', () => ({ sessionId: id })],
      ['a non-UUID session id', 400, 'sessionId', () => ({ sessionId: 'nope', feedback: 'useful' })],
      ['a comment over 1,000 characters', 400, 'comment', () => ({ sessionId: id, feedback: 'not_useful', comment: 'x'.repeat(1001) })],
      ['an unknown field', 400, 'rating', () => ({ sessionId: id, feedback: 'useful', rating: 5 })],
      ['an unknown session', 404, null, () => ({ sessionId: '00000000-0000-4000-8000-000000000000', feedback: 'useful' })],
      ["another tenant's session", 404, null, () => ({ sessionId: foreign, feedback: 'not_useful' })],
      ['useful on a FAILED session', 409, null, () => ({ sessionId: failed, feedback: 'useful' })],
      ['a RUNNING session', 409, null, () => ({ sessionId: running, feedback: 'not_useful' })],
    ] as const)('%s → %i', async (_label, status, field, payload) => {
      const before = await snapshot();
      const res = await feedback(acme, payload());
      expect(res.statusCode).toBe(status);
      if (field) expect(res.json<{ details: { fields: string[] } }>().details.fields).toContain(field);
      expect(await snapshot()).toEqual(before);
    });

    it('malformed JSON → 400', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/feedback',
        headers: { 'x-api-key': acme.clientKey, 'content-type': 'application/json' },
        payload: '{"sessionId":',
      });
      expect(res.statusCode).toBe(400);
    });

    it('not_useful on a FAILED run is accepted (BAD_CASE), and useful stays refused', async () => {
      expect((await feedback(acme, { sessionId: failed, feedback: 'not_useful' })).json()).toMatchObject({ status: 'BAD_CASE' });
      expect((await feedback(acme, { sessionId: failed, feedback: 'useful' })).statusCode).toBe(409);
    });
  });

  describe('auth', () => {
    it('needs a key (401); operators may post feedback; clients may not review (403)', async () => {
      expect(
        (await t.request({ method: 'POST', url: '/api/feedback', payload: { sessionId: '00000000-0000-4000-8000-000000000000', feedback: 'useful' } }))
          .statusCode,
      ).toBe(401);
      const id = await ingest(acme);
      expect((await feedback(acme, { sessionId: id, feedback: 'useful' }, 'operatorKey')).statusCode).toBe(200);
      for (const url of ['/admin/bad-cases', '/admin/case-library']) {
        expect((await t.request({ method: 'GET', url, headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
        expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
      }
      expect(
        (await t.request({ method: 'POST', url: '/admin/case-library', headers: { 'x-api-key': acme.clientKey }, payload: { query: 'q', answer: 'a' } }))
          .statusCode,
      ).toBe(403);
    });
  });

  describe('case library administration', () => {
    it('creates MANUAL cases, filters, edits faultCategory/errorCode, and keeps tenants apart', async () => {
      const created = await admin(acme, 'POST', '/admin/case-library', {
        query: 'E305 是什么?',
        answer: '编码器通讯中断，检查线缆。',
        faultCategory: 'COMMUNICATION',
        errorCode: 'E305',
      });
      expect(created.statusCode).toBe(201);
      const c = created.json<{ id: string }>();
      expect(c).toMatchObject({ sourceType: 'MANUAL', sessionId: null, faultCategory: 'COMMUNICATION', errorCode: 'E305' });

      const manual = (await admin(acme, 'GET', '/admin/case-library?sourceType=MANUAL')).json<{ items: { id: string; sourceType: string }[] }>();
      expect(manual.items.map((x) => x.id)).toContain(c.id);
      expect(manual.items.every((x) => x.sourceType === 'MANUAL')).toBe(true);
      const comms = (await admin(acme, 'GET', '/admin/case-library?faultCategory=COMMUNICATION')).json<{ items: { id: string }[] }>();
      expect(comms.items.map((x) => x.id)).toEqual([c.id]);
      const auto = (await admin(acme, 'GET', '/admin/case-library?sourceType=AUTO&faultCategory=COMMUNICATION')).json<{ items: unknown[] }>();
      expect(auto.items).toEqual([]);

      const edited = await admin(acme, 'PATCH', `/admin/case-library/${c.id}`, { faultCategory: 'ELECTRICAL' });
      expect(edited.json()).toMatchObject({ faultCategory: 'ELECTRICAL', errorCode: 'E305' });
      const cleared = await admin(acme, 'PATCH', `/admin/case-library/${c.id}`, { errorCode: null });
      expect(cleared.json()).toMatchObject({ faultCategory: 'ELECTRICAL', errorCode: null });
      expect((await admin(acme, 'GET', `/admin/case-library/${c.id}`)).json()).toMatchObject({ errorCode: null });

      const before = await snapshot();
      expect((await admin(globex, 'PATCH', `/admin/case-library/${c.id}`, { faultCategory: 'OTHER' })).statusCode).toBe(404);
      expect((await admin(globex, 'GET', `/admin/case-library/${c.id}`)).statusCode).toBe(404);
      expect((await admin(acme, 'PATCH', `/admin/case-library/${c.id}`, {})).statusCode).toBe(400);
      expect((await admin(acme, 'PATCH', `/admin/case-library/${c.id}`, { faultCategory: 'NOPE' })).statusCode).toBe(400);
      expect((await admin(acme, 'PATCH', `/admin/case-library/${c.id}`, { errorCode: 'bad code!' })).statusCode).toBe(400);
      expect((await admin(acme, 'PATCH', '/admin/case-library/not-a-uuid', { faultCategory: 'OTHER' })).statusCode).toBe(400);
      expect((await admin(acme, 'POST', '/admin/case-library', { query: '', answer: 'a' })).statusCode).toBe(400);
      expect((await admin(acme, 'POST', '/admin/case-library', { query: 'q', answer: 'a', sourceType: 'AUTO' })).statusCode).toBe(400);
      expect(await snapshot()).toEqual(before);
      const globexCases = (await admin(globex, 'GET', '/admin/case-library')).json<{ items: unknown[] }>();
      expect(globexCases.items).toEqual([]);
    });

    it('paginates newest first with a cursor, without duplicates or gaps', async () => {
      const tenant = await t.createTenant();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await admin(tenant, 'POST', '/admin/case-library', { query: `q${i}`, answer: `a${i}` })).json<{ id: string }>().id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: { id: string }[]; nextCursor: string | null } = (
          await admin(tenant, 'GET', `/admin/case-library?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        ).json();
        seen.push(...page.items.map((x) => x.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());

      for (const id of [await ingest(tenant), await ingest(tenant), await ingest(tenant)]) await feedback(tenant, { sessionId: id, feedback: 'not_useful' });
      const first = (await admin(tenant, 'GET', '/admin/bad-cases?limit=2')).json<{ items: unknown[]; nextCursor: string }>();
      expect(first.items).toHaveLength(2);
      const second = (await admin(tenant, 'GET', `/admin/bad-cases?limit=2&cursor=${first.nextCursor}`)).json<{
        items: unknown[];
        nextCursor: string | null;
      }>();
      expect(second.items).toHaveLength(1);
      expect(second.nextCursor).toBeNull();
    });

    it.each([
      ['/admin/case-library?cursor=garbage', 400],
      ['/admin/case-library?limit=0', 400],
      ['/admin/case-library?limit=201', 400],
      ['/admin/case-library?faultCategory=bogus', 400],
      ['/admin/case-library?sourceType=SOMETIMES', 400],
      ['/admin/bad-cases?cursor=garbage', 400],
    ])('%s → %i', async (url, status) => {
      expect((await admin(acme, 'GET', url)).statusCode).toBe(status);
    });
  });

  describe('failure attribution of bad cases', () => {
    it('each bad case gets one layer from its trace; the report counts them per layer and rule, in the window and the tenant', async () => {
      const tenant = await t.createTenant('feedback-attribution');
      const ids = {
        routing: await ingest(tenant),
        retrieval: await ingest(tenant, { references: [], knowledgeSearched: true }),
        knowledge_gap: await ingest(tenant, { references: [], knowledgeSearched: true }),
        answer_generation: await ingest(tenant),
      };
      await t.db.pool.query(`UPDATE diagnosis_session SET route_trace = $2 WHERE id = $1`, [
        ids.routing,
        { finalIntent: 'alarm', decisionReason: 'semantic_override', finalConfidence: 0.2, needClarify: false },
      ]);
      await t.db.pool.query(`INSERT INTO tool_invocation (tenant_id, session_id, tool_name, status) VALUES ($1, $2, 'lookup_knowledge', 'FAILED')`, [
        tenant.id,
        ids.retrieval,
      ]);
      await t.db.pool.query(
        `INSERT INTO tool_invocation (tenant_id, session_id, tool_name, status, relevance_level, retrieval_details) VALUES ($1, $2, 'lookup_knowledge', 'SUCCESS', 'PRECISE', '{}')`,
        [tenant.id, ids.answer_generation],
      );
      const before = new Date(Date.now() - 1000).toISOString();
      for (const id of Object.values(ids)) expect((await feedback(tenant, { sessionId: id, feedback: 'not_useful' })).statusCode).toBe(200);

      const queue = (await admin(tenant, 'GET', '/admin/bad-cases')).json<{ items: { sessionId: string; attribution: { layer: string; reason: string } }[] }>();
      const got = Object.fromEntries(queue.items.map((i) => [i.sessionId, i.attribution]));
      expect(got).toEqual({
        [ids.routing]: { layer: 'routing', reason: 'low_routing_confidence' },
        [ids.retrieval]: { layer: 'retrieval', reason: 'lookup_failed' },
        [ids.knowledge_gap]: { layer: 'knowledge_gap', reason: 'no_references' },
        [ids.answer_generation]: { layer: 'answer_generation', reason: 'answer_not_useful' },
      });

      const report = await admin(tenant, 'GET', `/admin/bad-cases/report?from=${before}`);
      expect(report.statusCode).toBe(200);
      expect(report.json()).toMatchObject({
        from: before,
        to: null,
        total: 4,
        byLayer: { routing: 1, retrieval: 1, knowledge_gap: 1, answer_generation: 1 },
        byReason: { low_routing_confidence: 1, lookup_failed: 1, no_references: 1, answer_not_useful: 1, clarify: 0, unexplained: 0 },
      });
      // The window is the feedback's time: none was given before `before`.
      expect((await admin(tenant, 'GET', `/admin/bad-cases/report?to=${encodeURIComponent(before)}`)).json()).toMatchObject({ total: 0 });
      // Another tenant's report does not see them.
      const stranger = await t.createTenant('feedback-attribution-other');
      expect((await admin(stranger, 'GET', '/admin/bad-cases/report')).json()).toMatchObject({
        total: 0,
        byLayer: { routing: 0, retrieval: 0, knowledge_gap: 0, answer_generation: 0 },
      });
    });

    it.each([
      ['from=yesterday', 'from'],
      ['to=2026-03-01', 'to'],
      ['from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'from'],
      ['layer=routing', 'layer'],
    ])('GET /admin/bad-cases/report?%s → 400 naming %s', async (qs, field) => {
      const res = await admin(acme, 'GET', `/admin/bad-cases/report?${qs}`);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(field);
    });

    it('the report is operator-only: client key 403, none 401', async () => {
      expect((await t.request({ method: 'GET', url: '/admin/bad-cases/report', headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: '/admin/bad-cases/report' })).statusCode).toBe(401);
    });
  });

  it('exports feedback counters to Prometheus', async () => {
    const res = await t.request({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/arbiter_feedback_total\{feedback="useful",result="applied"\} \d+/);
    expect(res.body).toMatch(/arbiter_feedback_total\{feedback="useful",result="rejected"\} \d+/);
    expect(res.body).toMatch(/arbiter_case_library_events_total\{event="created"\} \d+/);
  });
});
