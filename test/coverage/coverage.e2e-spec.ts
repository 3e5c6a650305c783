import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobsService } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface Coverage {
  verdict: string;
  reasonCode: string;
  evaluatorVersion: string;
  referenceCount: number;
  topScore: number;
}

const today = () => new Date().toISOString().slice(0, 10);

describe('coverage (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const op = () => ({ 'x-api-key': acme.operatorKey });

  const ingest = async (tenant: TestTenant, body: Record<string, unknown>) => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey }, payload: { status: 'SUCCESS', ...body } });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string; coverage: Coverage | null }>();
  };

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('decision on finish and the Session view', () => {
    it.each([
      [{ query: '怎么重置？', answer: '按住复位键', references: [{ title: 'm', score: 0.83 }, { score: 0.41 }] }, { verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 2, topScore: 0.83 }],
      [{ query: '你好', answer: '你好！' }, { verdict: 'covered', reasonCode: 'covered_non_knowledge_response', referenceCount: 0, topScore: 0 }],
      [{ query: 'X-200 报错 E15', answer: '未检索到相关资料，建议联系技术支持', knowledgeSearched: true }, { verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 0, topScore: 0 }],
      [{ query: 'x200报错e15!', answer: '请检查电源', knowledgeSearched: true }, { verdict: 'uncovered', reasonCode: 'uncovered_no_references', referenceCount: 0, topScore: 0 }],
      [{ query: '这是什么？', answer: '这是夹爪', media: [{ type: 'image', url: 'https://x.test/a.png' }] }, { verdict: 'covered', reasonCode: 'covered_visual_recognition', referenceCount: 0, topScore: 0 }],
    ])('ingest %j → coverage %j in the response and in GET /api/sessions/:id', async (body, expected) => {
      const view = await ingest(acme, body);
      expect(view.coverage).toEqual({ ...expected, evaluatorVersion: 'v1' });
      const again = await t.request({ method: 'GET', url: `/api/sessions/${view.id}`, headers: { 'x-api-key': acme.clientKey } });
      expect(again.json<{ coverage: Coverage }>().coverage).toEqual({ ...expected, evaluatorVersion: 'v1' });
    });

    it('a FAILED session gets no decision', async () => {
      const view = await ingest(acme, { query: 'q', status: 'FAILED' });
      expect(view.coverage).toBeNull();
      const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM coverage_decision WHERE session_id = $1', [view.id]);
      expect(rows[0].n).toBe(0);
    });
  });

  describe('GET /admin/coverage/report', () => {
    it('counts the tenant’s decisions of the current version, by reason, channel and day', async () => {
      const res = await t.request({ method: 'GET', url: `/admin/coverage/report?from=${today()}&to=${today()}&groupBy=day,channel,reason,layer`, headers: op() });
      expect(res.statusCode).toBe(200);
      const body = res.json<Record<string, unknown>>();
      // Without groupBy: day, channel and reason only (the layer breakdown reads every uncovered session).
      const plain = (await t.request({ method: 'GET', url: `/admin/coverage/report?from=${today()}&to=${today()}`, headers: op() })).json<Record<string, unknown>>();
      expect(plain.groupBy).toEqual(['day', 'channel', 'reason']);
      expect(plain).not.toHaveProperty('byLayer');
      expect(plain).toEqual({ ...body, groupBy: ['day', 'channel', 'reason'], byLayer: undefined, byLayerReason: undefined });
      expect(body).toMatchObject({
        evaluatorVersion: 'v1',
        timeZone: 'UTC',
        total: 5,
        covered: 3,
        uncovered: 2,
        coverageRate: 0.6,
        byReason: { covered_has_references: 1, covered_non_knowledge_response: 1, covered_visual_recognition: 1, uncovered_explicit_no_answer: 1, uncovered_no_references: 1 },
        byChannel: [{ channel: 'web', total: 5, covered: 3, uncovered: 2, coverageRate: 0.6 }],
        byDay: [{ date: today(), total: 5, covered: 3 }],
        // Both uncovered sessions searched the knowledge base and kept no reference (no trace, no lookup recorded).
        byLayer: { routing: 0, retrieval: 0, knowledge_gap: 2, answer_generation: 0 },
        byLayerReason: expect.objectContaining({ no_references: 2, lookup_failed: 0, low_routing_confidence: 0 }),
      });
    });

    it('returns only the requested breakdown and honours channel and time zone', async () => {
      const res = await t.request({ method: 'GET', url: `/admin/coverage/report?groupBy=reason&channel=api&timeZone=Asia/Shanghai`, headers: op() });
      expect(res.statusCode).toBe(200);
      const body = res.json<Record<string, unknown>>();
      expect(body).toMatchObject({ total: 0, coverageRate: null, channel: 'api', timeZone: 'Asia/Shanghai', groupBy: ['reason'] });
      expect(body).not.toHaveProperty('byDay');
    });

    it('another tenant sees none of it', async () => {
      const res = await t.request({ method: 'GET', url: '/admin/coverage/report', headers: { 'x-api-key': other.operatorKey } });
      expect(res.json()).toMatchObject({ total: 0, coverageRate: null });
    });

    it.each([
      ['from after to', 'from=2026-03-02&to=2026-03-01', 'from'],
      ['not a date', 'from=yesterday', 'from'],
      ['impossible date', 'to=2026-02-30', 'to'],
      ['window too long', 'from=2024-01-01&to=2026-01-01', '366'],
      ['bad groupBy', 'groupBy=week', 'groupBy'],
      ['bad groupBy among good ones', 'groupBy=layer,layers', 'groupBy'],
      ['bad time zone', 'timeZone=Mars/Base', 'timeZone'],
      ['unknown evaluator version', 'evaluatorVersion=v9', 'v9'],
      ['unknown parameter', 'foo=1', 'foo'],
    ])('400 on %s', async (_label, qs, mention) => {
      const res = await t.request({ method: 'GET', url: `/admin/coverage/report?${qs}`, headers: op() });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(mention);
    });

    it.each([
      ['no key', {}, 401],
      ['a client key', { client: true }, 403],
    ])('%s → %s', async (_label, h, status) => {
      const headers = 'client' in h ? { 'x-api-key': acme.clientKey } : {};
      const res = await t.request({ method: 'GET', url: '/admin/coverage/report', headers });
      expect(res.statusCode).toBe(status);
    });
  });

  describe('GET /admin/coverage/gaps', () => {
    it('groups uncovered queries by normalized text with count, reasons and samples', async () => {
      const res = await t.request({ method: 'GET', url: '/admin/coverage/gaps?limit=10', headers: op() });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ items: { normalizedText: string; count: number; reasonCodes: string[]; sampleSessionIds: string[]; sampleQuery: string }[] }>();
      expect(body.items).toHaveLength(1);
      expect(body.items[0]).toMatchObject({
        normalizedText: 'x200报错e15',
        count: 2,
        reasonCodes: ['uncovered_explicit_no_answer', 'uncovered_no_references'],
        sampleQuery: 'x200报错e15!',
        layer: 'knowledge_gap',
        byLayer: { routing: 0, retrieval: 0, knowledge_gap: 2, answer_generation: 0 },
      });
      expect(body.items[0]!.sampleSessionIds).toHaveLength(2);
      const foreign = await t.request({ method: 'GET', url: '/admin/coverage/gaps', headers: { 'x-api-key': other.operatorKey } });
      expect(foreign.json()).toMatchObject({ items: [] });
    });

    it('failure layers follow each uncovered session’s trace (report byLayer, gap layer; ties go upstream), per tenant', async () => {
      const uncovered = await t.db.pool.query<{ session_id: string; reason_code: string }>(
        `SELECT session_id, reason_code FROM coverage_decision WHERE tenant_id = $1 AND verdict = 'uncovered' ORDER BY reason_code`,
        [acme.id],
      );
      const [explicit, noRefs] = uncovered.rows;
      expect(explicit!.reason_code).toBe('uncovered_explicit_no_answer');
      // Routed with low confidence → routing; a failed knowledge lookup → retrieval.
      await t.db.pool.query(`UPDATE diagnosis_session SET route_trace = $2 WHERE id = $1`, [
        explicit!.session_id,
        { finalIntent: 'alarm', decisionReason: 'fusion_fallback', finalConfidence: 0.3, needClarify: false },
      ]);
      await t.db.pool.query(`INSERT INTO tool_invocation (tenant_id, session_id, tool_name, status) VALUES ($1, $2, 'lookup_knowledge', 'FAILED')`, [
        acme.id,
        noRefs!.session_id,
      ]);
      const report = await t.request({ method: 'GET', url: '/admin/coverage/report?groupBy=layer', headers: op() });
      expect(report.statusCode).toBe(200);
      const body = report.json<Record<string, unknown>>();
      expect(body).toMatchObject({ groupBy: ['layer'], uncovered: 2, byLayer: { routing: 1, retrieval: 1, knowledge_gap: 0, answer_generation: 0 } });
      expect(body.byLayerReason).toMatchObject({ low_routing_confidence: 1, lookup_failed: 1, no_references: 0 });
      expect(body).not.toHaveProperty('byReason');
      const gaps = (await t.request({ method: 'GET', url: '/admin/coverage/gaps', headers: op() })).json<{ items: { layer: string; byLayer: Record<string, number> }[] }>();
      expect(gaps.items[0]).toMatchObject({ layer: 'routing', byLayer: { routing: 1, retrieval: 1, knowledge_gap: 0, answer_generation: 0 } });
      // Another tenant: zeros.
      const foreign = await t.request({ method: 'GET', url: '/admin/coverage/report?groupBy=layer', headers: { 'x-api-key': other.operatorKey } });
      expect(foreign.json()).toMatchObject({ byLayer: { routing: 0, retrieval: 0, knowledge_gap: 0, answer_generation: 0 } });
    });

    it.each(['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'from=2026-01-05&to=2026-01-01'])('400 on %s', async (qs) => {
      const res = await t.request({ method: 'GET', url: `/admin/coverage/gaps?${qs}`, headers: op() });
      expect(res.statusCode).toBe(400);
    });

    it('401 without a key', async () => {
      expect((await t.request({ method: 'GET', url: '/admin/coverage/gaps' })).statusCode).toBe(401);
    });
  });

  describe('POST /admin/coverage/re-evaluate', () => {
    it('202 {jobId}; the job backfills undecided sessions, reports the malformed one, and is idempotent', async () => {
      // Legacy rows written without the hook: two fine, one with a non-numeric score.
      const conv = await t.db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [acme.id]);
      const legacy = await t.db.pool.query<{ id: string }>(
        `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, source_references, knowledge_searched)
         VALUES ($1, $2, 'legacy a', 'ok', 'SUCCESS', '[{"score": 0.7}]', true),
                ($1, $2, 'legacy b', 'ok', 'BAD_CASE', '[]', true),
                ($1, $2, 'legacy c', 'ok', 'SUCCESS', '[{"score": "high"}]', true),
                ($1, $2, 'legacy d', null, 'FAILED', '[]', true)
         RETURNING id`,
        [acme.id, conv.rows[0]!.id],
      );
      const res = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload: {} });
      expect(res.statusCode).toBe(202);
      const { jobId } = res.json<{ jobId: string }>();
      expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
      await t.app.get(JobsService).runPending();
      const job = await t.request({ method: 'GET', url: `/admin/jobs/${jobId}`, headers: op() });
      expect(job.json()).toMatchObject({ status: 'succeeded', processed: 3, failed: 1, details: { decided: 2, rejected: 1, rejectedSessions: [{ sessionId: legacy.rows[2]!.id, code: 'MALFORMED_REFERENCE' }] } });
      const view = await t.request({ method: 'GET', url: `/api/sessions/${legacy.rows[1]!.id}`, headers: { 'x-api-key': acme.clientKey } });
      expect(view.json<{ coverage: Coverage }>().coverage).toMatchObject({ reasonCode: 'uncovered_no_references', evaluatorVersion: 'v1' });

      const again = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload: { evaluatorVersion: 'v1', from: '2020-01-01', to: today() } });
      expect(again.statusCode).toBe(202);
      await t.app.get(JobsService).runPending();
      const second = await t.request({ method: 'GET', url: `/admin/jobs/${again.json<{ jobId: string }>().jobId}`, headers: op() });
      expect(second.json()).toMatchObject({ status: 'succeeded', processed: 1, failed: 1, details: { decided: 0 } });
      const { rows } = await t.db.pool.query('SELECT count(*)::int AS n, count(DISTINCT session_id)::int AS d FROM coverage_decision WHERE tenant_id = $1', [acme.id]);
      expect(rows[0].n).toBe(rows[0].d);
    });

    it('another tenant cannot see the job (404)', async () => {
      const res = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload: {} });
      const foreign = await t.request({ method: 'GET', url: `/admin/jobs/${res.json<{ jobId: string }>().jobId}`, headers: { 'x-api-key': other.operatorKey } });
      expect(foreign.statusCode).toBe(404);
    });

    it.each([
      [{ evaluatorVersion: 'v9' }, 'v9'],
      [{ from: '2026-02-01', to: '2026-01-01' }, 'after'],
      [{ from: 'soon' }, 'from'],
      [{ evaluatorVersion: 1 }, 'evaluatorVersion'],
      [{ extra: true }, 'extra'],
    ])('400 on %j', async (payload, mention) => {
      const res = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: op(), payload });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(mention);
    });

    it('403 for a client key', async () => {
      const res = await t.request({ method: 'POST', url: '/admin/coverage/re-evaluate', headers: { 'x-api-key': acme.clientKey }, payload: {} });
      expect(res.statusCode).toBe(403);
    });
  });
});
