import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { isBackgroundStatement, roundTripCounter } from '../support/round-trips.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface SessionBody {
  conversationId?: string;
  channel?: string;
  userRef?: string;
  query: string;
  answer?: string;
  status: 'SUCCESS' | 'FAILED';
  stepCount?: number;
  toolCallCount?: number;
  references?: { filePath?: string; title?: string; score: number }[];
  knowledgeSearched?: boolean;
  latencyMs?: number;
}

interface Summary {
  id: string;
  channel: string;
  userRef: string | null;
  sessionCount: number;
  lastActivityAt: string;
  lastStatus: string | null;
  lowestConfidence: number | null;
  anyBadCase: boolean;
}

const TZ = 'Asia/Shanghai';

const trace = (reason: string, judge: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ruleMatch:
    reason === 'rule_high_confidence' ? { ruleId: 'r1', intent: 'reset_arm', matchType: 'keyword', matchedText: '复位', score: 1, durationMs: 0.2 } : null,
  semanticMatch: { topCandidates: [{ intent: 'reset_arm', score: 0.8 }], durationMs: 3 },
  llmJudge: judge,
  fusion: { weights: { rule: 0.5, semantic: 0.3, llm: 0.2 }, finalConfidence: 0.9, decisionReason: reason },
  ...extra,
});

/**
 * Dataset with known counts (tenant time zone Asia/Shanghai), sessions via POST /api/sessions, feedback via
 * POST /api/feedback, route traces / self-evaluations / tool invocations by direct SQL:
 *   A (web):  s1 SUCCESS refs, 100 ms, rule_high_confidence, rule 80, 2 lookups | s2 SUCCESS "未找到", 300 ms,
 *             llm_judge (120 tokens, needClarify), llm 90, intent reset_arm | s3 FAILED, 500 ms, rule 0
 *   B (api):  s4 SUCCESS refs, 200 ms, semantic_fallback (a legacy trace from before 2026-11-30: judge triggered but disabled), rule 70, useful |
 *             s5 SUCCESS searched/no refs, 400 ms, no_match, llm 40, not_useful → BAD_CASE
 *   C (web):  s6 SUCCESS, no latency, no trace, no self-evaluation
 *   D (web):  s7 SUCCESS on 2026-01-10T20:00Z (= 2026-01-11 in Shanghai), outside the default window
 */
describe('monitoring (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const s: Record<string, string> = {};
  const conv: Record<string, string> = {};

  const ingest = async (tenant: TestTenant, body: SessionBody): Promise<{ id: string; conversationId: string }> => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey }, payload: body });
    if (res.statusCode !== 201) throw new Error(`ingest failed: ${res.statusCode} ${res.body}`);
    return res.json<{ id: string; conversationId: string }>();
  };
  const op = (url: string, tenant: TestTenant = acme) => t.request({ method: 'GET', url, headers: { 'x-api-key': tenant.operatorKey } });
  const setSession = (id: string, sql: string, params: unknown[] = []) => t.db.pool.query(`UPDATE diagnosis_session SET ${sql} WHERE id = $1`, [id, ...params]);
  const selfEval = (confidence: number, source: 'rule' | 'llm') =>
    JSON.stringify({ confidence, reasoning: 'test', source, evaluatedAt: '2026-01-01T00:00:00Z' });

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    await t.db.pool.query('UPDATE tenant SET time_zone = $2 WHERE id = $1', [acme.id, TZ]);
    const ref = [{ filePath: 'manuals/servo.md', title: 'Servo', score: 0.82 }];

    const s1 = await ingest(acme, {
      channel: 'web',
      userRef: 'u-a',
      query: '机械臂如何复位？',
      answer: '按住复位键三秒。',
      status: 'SUCCESS',
      stepCount: 2,
      toolCallCount: 2,
      references: ref,
      latencyMs: 100,
    });
    conv.A = s1.conversationId;
    s.s1 = s1.id;
    s.s2 = (await ingest(acme, { conversationId: conv.A, query: '报警 E42？', answer: '抱歉，未找到相关资料', status: 'SUCCESS', latencyMs: 300 })).id;
    s.s3 = (await ingest(acme, { conversationId: conv.A, query: '还是不行', status: 'FAILED', latencyMs: 500 })).id;
    const s4 = await ingest(acme, {
      channel: 'api',
      userRef: 'u-b',
      query: '保修多久？',
      answer: '一年。',
      status: 'SUCCESS',
      references: ref,
      latencyMs: 200,
    });
    conv.B = s4.conversationId;
    s.s4 = s4.id;
    s.s5 = (
      await ingest(acme, {
        conversationId: conv.B,
        query: '型号 Z9 参数',
        answer: '请参考说明书。',
        status: 'SUCCESS',
        knowledgeSearched: true,
        latencyMs: 400,
      })
    ).id;
    const s6 = await ingest(acme, { channel: 'web', query: '你好', answer: '你好！', status: 'SUCCESS' });
    conv.C = s6.conversationId;
    s.s6 = s6.id;
    const s7 = await ingest(acme, { channel: 'web', query: '一月的问题', answer: '一月的回答', status: 'SUCCESS', latencyMs: 50 });
    conv.D = s7.conversationId;
    s.s7 = s7.id;
    await ingest(other, { channel: 'api', query: 'other tenant', answer: 'x', status: 'SUCCESS', latencyMs: 9999 });

    await setSession(s.s1, 'route_trace = $2, self_evaluation = $3, intent = $4', [
      trace('rule_high_confidence', { triggered: false }),
      selfEval(80, 'rule'),
      'reset_arm',
    ]);
    await setSession(s.s2, 'route_trace = $2, self_evaluation = $3, intent = $4', [
      trace(
        'llm_judge',
        { triggered: true, triggerReason: 'gray_zone', intent: 'alarm_code', score: 0.8, durationMs: 640, tokens: 120 },
        { needClarify: true },
      ),
      selfEval(90, 'llm'),
      'alarm_code',
    ]);
    await setSession(s.s3, 'self_evaluation = $2', [selfEval(0, 'rule')]);
    await setSession(s.s4, 'route_trace = $2, self_evaluation = $3', [
      trace('semantic_fallback', { triggered: true, triggerReason: 'conflict', skipped: 'disabled' }),
      selfEval(70, 'rule'),
    ]);
    await setSession(s.s5, 'route_trace = $2, self_evaluation = $3', [trace('no_match', { triggered: false }), selfEval(40, 'llm')]);
    await setSession(s.s6, 'self_evaluation = NULL');
    for (const [relevance, dedup, offset] of [
      ['HIGHLY_RELEVANT', null, 1],
      ['REFERENCE', 'domain_retrieved', 2],
    ] as const) {
      await t.db.pool.query(
        `INSERT INTO tool_invocation (tenant_id, session_id, tool_name, arguments, relevance_level, dedup_reason, retrieval_details, duration_ms, created_at)
         VALUES ($1, $2, 'knowledge_lookup', '{"query":"复位"}', $3, $4, $5, 12, now() + make_interval(secs => $6))`,
        [
          acme.id,
          s.s1,
          relevance,
          dedup,
          { l1_top_similarity: 0.81, relevance_level: relevance, completeness_hint: null, retrieved_domains: ['robot_arm'], dedup_reason: dedup },
          offset,
        ],
      );
    }
    // D happened in January (20:00 UTC on the 10th = the 11th in Shanghai).
    await setSession(s.s7, `created_at = '2026-01-10T20:00:00Z'`);
    await t.db.pool.query(`UPDATE coverage_decision SET session_created_at = '2026-01-10T20:00:00Z' WHERE session_id = $1`, [s.s7]);
    await t.db.pool.query(`UPDATE conversation SET created_at = '2026-01-10T20:00:00Z', last_activity_at = '2026-01-10T20:00:00Z' WHERE id = $1`, [conv.D]);

    for (const [sessionId, feedback] of [
      [s.s4, 'useful'],
      [s.s5, 'not_useful'],
    ] as const) {
      const res = await t.request({
        method: 'POST',
        url: '/api/feedback',
        headers: { 'x-api-key': acme.clientKey },
        payload: { sessionId, feedback, comment: `${feedback} comment` },
      });
      if (res.statusCode >= 300) throw new Error(`feedback failed: ${res.statusCode} ${res.body}`);
    }
  }, 240_000);
  afterAll(async () => {
    await t.close();
  });

  describe('GET /admin/monitoring/conversations', () => {
    it("lists the tenant's conversations newest first with their aggregates", async () => {
      const res = await op('/admin/monitoring/conversations');
      expect(res.statusCode).toBe(200);
      const body = res.json<{ items: Summary[]; nextCursor: string | null }>();
      expect(body.items.map((c) => c.id)).toEqual([conv.C, conv.B, conv.A, conv.D]);
      expect(body.nextCursor).toBeNull();
      const byId = new Map(body.items.map((c) => [c.id, c]));
      expect(byId.get(conv.A)).toMatchObject({ channel: 'web', userRef: 'u-a', sessionCount: 3, lastStatus: 'FAILED', lowestConfidence: 0, anyBadCase: false });
      expect(byId.get(conv.B)).toMatchObject({
        channel: 'api',
        userRef: 'u-b',
        sessionCount: 2,
        lastStatus: 'BAD_CASE',
        lowestConfidence: 40,
        anyBadCase: true,
      });
      expect(byId.get(conv.C)).toMatchObject({ sessionCount: 1, lastStatus: 'SUCCESS', lowestConfidence: null, anyBadCase: false });
      expect(byId.get(conv.D)!.lastActivityAt).toBe('2026-01-10T20:00:00.000Z');
    });

    it('pages with a keyset cursor: every conversation once, in order', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await op(`/admin/monitoring/conversations?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.statusCode).toBe(200);
        const page = res.json<{ items: Summary[]; nextCursor: string | null }>();
        expect(page.items.length).toBeLessThanOrEqual(1);
        seen.push(...page.items.map((c) => c.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual([conv.C, conv.B, conv.A, conv.D]);
    });

    it.each([
      ['channel=api', () => [conv.B]],
      ['status=FAILED', () => [conv.A]],
      ['status=BAD_CASE', () => [conv.B]],
      ['intent=alarm_code', () => [conv.A]],
      ['intent=nothing', () => []],
      ['from=2026-01-11&to=2026-01-11', () => [conv.D]], // Shanghai day of 2026-01-10T20:00Z
      ['from=2026-01-10&to=2026-01-10', () => []],
      ['from=2026-01-10T19:59:59Z&to=2026-01-10T20:00:00Z', () => [conv.D]],
      ['to=2026-06-01', () => [conv.D]],
      ['channel=web&from=2026-06-01', () => [conv.C, conv.A]],
    ])('filters: %s', async (query, expected) => {
      const res = await op(`/admin/monitoring/conversations?${query}`);
      expect(res.statusCode).toBe(200);
      expect(res.json<{ items: Summary[] }>().items.map((c) => c.id)).toEqual(expected());
    });

    it('another tenant sees only its own conversations', async () => {
      const res = await op('/admin/monitoring/conversations', other);
      const items = res.json<{ items: Summary[] }>().items;
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ channel: 'api', sessionCount: 1 });
    });

    it.each([
      'from=2026-02-30',
      'from=yesterday',
      'to=2026-13-01',
      'from=2026-03-01T08:00:00',
      'from=2026-03-02&to=2026-03-01',
      'from=2026-03-01T10:00:00Z&to=2026-03-01T09:59:59Z',
      'limit=0',
      'limit=201',
      'limit=abc',
      'limit=1.5',
      'status=DONE',
      'channel=bad%20channel',
      'cursor=not-a-cursor',
      'unknown=1',
    ])('rejects %s with 400', async (query) => {
      const res = await op(`/admin/monitoring/conversations?${query}`);
      expect(res.statusCode).toBe(400);
    });

    it('accepts limit at both ends of 1..200', async () => {
      expect((await op('/admin/monitoring/conversations?limit=1')).statusCode).toBe(200);
      expect((await op('/admin/monitoring/conversations?limit=200')).statusCode).toBe(200);
    });

    it('needs an operator key: client 403, none 401', async () => {
      expect((await t.request({ method: 'GET', url: '/admin/monitoring/conversations', headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: '/admin/monitoring/conversations' })).statusCode).toBe(401);
    });
  });

  describe('GET /admin/monitoring/conversations/:id', () => {
    it('returns every session in order with route trace, tool invocations, self-evaluation, coverage, feedback and latency', async () => {
      const res = await op(`/admin/monitoring/conversations/${conv.A}`);
      expect(res.statusCode).toBe(200);
      const body = res.json<{ id: string; sessionCount: number; sessions: Record<string, unknown>[] }>();
      expect(body).toMatchObject({ id: conv.A, channel: 'web', userRef: 'u-a', sessionCount: 3 });
      expect(body.sessions.map((x) => x.id)).toEqual([s.s1, s.s2, s.s3]);
      const [first, second, third] = body.sessions;
      expect(first).toMatchObject({
        status: 'SUCCESS',
        intent: 'reset_arm',
        latencyMs: 100,
        routeTrace: {
          ruleMatch: { ruleId: 'r1', matchType: 'keyword' },
          semanticMatch: { durationMs: 3 },
          llmJudge: { triggered: false },
          fusion: { decisionReason: 'rule_high_confidence' },
        },
        selfEvaluation: { confidence: 80, source: 'rule' },
        coverage: { verdict: 'covered', reasonCode: 'covered_has_references', evaluatorVersion: 'v1', referenceCount: 1, topScore: 0.82 },
        feedback: null,
        references: [{ filePath: 'manuals/servo.md', score: 0.82 }],
      });
      expect(first!.toolInvocations).toEqual([
        expect.objectContaining({
          toolName: 'knowledge_lookup',
          relevanceLevel: 'HIGHLY_RELEVANT',
          dedupReason: null,
          retrievalDetails: {
            l1TopSimilarity: 0.81,
            relevanceLevel: 'HIGHLY_RELEVANT',
            completenessHint: null,
            retrievedDomains: ['robot_arm'],
            dedupReason: null,
          },
        }),
        expect.objectContaining({ relevanceLevel: 'REFERENCE', dedupReason: 'domain_retrieved' }),
      ]);
      expect(second).toMatchObject({
        routeTrace: { llmJudge: { triggered: true, tokens: 120 }, fusion: { decisionReason: 'llm_judge' } },
        coverage: { verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer' },
        toolInvocations: [],
      });
      expect(third).toMatchObject({ status: 'FAILED', coverage: null, routeTrace: null, latencyMs: 500, selfEvaluation: { confidence: 0 } });
    });

    it('shows feedback with its comment', async () => {
      const body = (await op(`/admin/monitoring/conversations/${conv.B}`)).json<{ sessions: Record<string, unknown>[] }>();
      expect(body.sessions.map((x) => [x.status, x.feedback])).toEqual([
        ['SUCCESS', expect.objectContaining({ value: 'useful', comment: 'useful comment' })],
        ['BAD_CASE', expect.objectContaining({ value: 'not_useful', comment: 'not_useful comment' })],
      ]);
    });

    it('uses a fixed number of queries whatever the session count (no N+1): 1 session vs 20', async () => {
      const one = await ingest(acme, { query: 'q0', answer: 'a', status: 'SUCCESS', references: [{ score: 0.5 }] });
      const many = await ingest(acme, { query: 'q0', answer: 'a', status: 'SUCCESS', references: [{ score: 0.5 }] });
      for (let i = 1; i < 20; i++)
        await ingest(acme, { conversationId: many.conversationId, query: `q${i}`, answer: 'a', status: 'SUCCESS', references: [{ score: 0.5 }] });
      await t.db.pool.query(
        `INSERT INTO tool_invocation (tenant_id, session_id, tool_name, relevance_level)
         SELECT tenant_id, id, 'knowledge_lookup', 'PRECISE' FROM diagnosis_session WHERE conversation_id = ANY($1::uuid[])`,
        [[one.conversationId, many.conversationId]],
      );
      // Every round trip on the app's pool counts, whichever layer sends it (docs/data-layer.md).
      const counter = roundTripCounter(t.app);
      try {
        const count = async (conversationId: string, sessions: number) => {
          await op(`/admin/monitoring/conversations/${conversationId}`); // warm the API-key cache
          const { result: res, trips } = await counter.measure(() => op(`/admin/monitoring/conversations/${conversationId}`));
          expect(res.statusCode).toBe(200);
          const body = res.json<{ sessions: { toolInvocations: unknown[] }[] }>();
          expect(body.sessions).toHaveLength(sessions);
          expect(body.sessions.every((x) => x.toolInvocations.length === 1)).toBe(true);
          return trips.statements.filter((sql) => !isBackgroundStatement(sql)).length;
        };
        const forOne = await count(one.conversationId, 1);
        const forTwenty = await count(many.conversationId, 20);
        expect(forOne).toBeGreaterThan(0);
        expect(forTwenty).toBe(forOne);
        expect(forTwenty).toBeLessThanOrEqual(3);
      } finally {
        counter.restore();
      }
    });

    it("another tenant's conversation is 404, an unknown id 404, a non-uuid 400", async () => {
      expect((await op(`/admin/monitoring/conversations/${conv.A}`, other)).statusCode).toBe(404);
      expect((await op('/admin/monitoring/conversations/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
      expect((await op('/admin/monitoring/conversations/not-a-uuid')).statusCode).toBe(400);
    });

    it('needs an operator key: client 403, none 401', async () => {
      expect((await t.request({ method: 'GET', url: `/admin/monitoring/conversations/${conv.A}`, headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(
        403,
      );
      expect((await t.request({ method: 'GET', url: `/admin/monitoring/conversations/${conv.A}` })).statusCode).toBe(401);
    });
  });

  describe('a chat session (POST /ai/chat, offline pipeline)', () => {
    it('shows its complete trace: route trace, lookups, self-evaluation, coverage, latency', async () => {
      const bot = await t.createTenant();
      const rule = {
        intent: 'fault',
        description: '故障报警排查 / alarms',
        keywords: ['报警', 'alarm'],
        semanticExamples: ['机械臂报警了怎么办'],
        action: 'knowledge',
        priority: 10,
      };
      const created = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: { 'x-api-key': bot.operatorKey }, payload: rule });
      expect(created.statusCode).toBe(201);
      const bulk = await t.request({
        method: 'POST',
        url: '/admin/knowledge/documents/bulk',
        headers: { 'x-api-key': bot.operatorKey },
        payload: DEMO_KNOWLEDGE as unknown as Record<string, unknown>[],
      });
      expect(bulk.statusCode).toBe(200);
      const chat = await t.request({
        method: 'POST',
        url: '/ai/chat',
        headers: { 'x-api-key': bot.clientKey },
        payload: { message: '机械臂报警 E201 伺服过流怎么办？' },
      });
      expect(chat.statusCode).toBe(200);
      const { sessionId, conversationId } = chat.json<{ sessionId: string; conversationId: string }>();
      const res = await op(`/admin/monitoring/conversations/${conversationId}`, bot);
      expect(res.statusCode).toBe(200);
      const body = res.json<{ sessions: Record<string, unknown>[] }>();
      expect(body.sessions).toHaveLength(1);
      const session = body.sessions[0]!;
      expect(session).toMatchObject({
        id: sessionId,
        intent: 'fault',
        routeTrace: {
          ruleMatch: { intent: 'fault', matchType: 'keyword' },
          semanticMatch: expect.objectContaining({ topCandidates: expect.any(Array) }),
          llmJudge: expect.objectContaining({ triggered: expect.any(Boolean) }),
          fusion: expect.objectContaining({ decisionReason: 'rule_high_confidence' }),
        },
        selfEvaluation: expect.objectContaining({ source: 'rule', confidence: expect.any(Number) }),
        latencyMs: expect.any(Number),
      });
      expect(session.toolInvocations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            relevanceLevel: expect.any(String),
            retrievalDetails: expect.objectContaining({ l1TopSimilarity: expect.any(Number), relevanceLevel: expect.any(String) }),
          }),
        ]),
      );
      if (session.status === 'SUCCESS') expect(session.coverage).toMatchObject({ evaluatorVersion: 'v1', verdict: expect.any(String) });
      const list = (await op('/admin/monitoring/conversations', bot)).json<{ items: Summary[] }>();
      expect(list.items).toEqual([expect.objectContaining({ id: conversationId, sessionCount: 1 })]);
      const stats = (await op('/admin/monitoring/stats', bot)).json<{ totals: { routedSessions: number; decisionReasons: Record<string, number> } }>();
      expect(stats.totals).toMatchObject({ routedSessions: 1, decisionReasons: { rule_high_confidence: 1 } });
    });
  });

  describe('POST /admin/monitoring/stats/rebuild', () => {
    const rebuild = (headers: Record<string, string>, payload?: object) =>
      t.request({ method: 'POST', url: '/admin/monitoring/stats/rebuild', headers, ...(payload ? { payload } : {}) });

    it("rebuilds this tenant's rollup without changing its figures; another tenant's rebuild leaves them alone", async () => {
      const before = (await op('/admin/monitoring/stats?groupBy=day')).json<{ totals: unknown; byDay: unknown }>();
      const mine = await rebuild({ 'x-api-key': acme.operatorKey });
      expect(mine.statusCode).toBe(200);
      const body = mine.json<{ sessionBuckets: number; coverageBuckets: number; durationMs: number }>();
      expect(body.sessionBuckets).toBeGreaterThan(0);
      expect(body.durationMs).toBeGreaterThanOrEqual(0);
      expect((await op('/admin/monitoring/stats?groupBy=day')).json<{ totals: unknown; byDay: unknown }>()).toEqual(before);
      // Another tenant's rebuild (its own few sessions) touches nothing of acme's.
      expect((await rebuild({ 'x-api-key': other.operatorKey })).statusCode).toBe(200);
      expect((await op('/admin/monitoring/stats?groupBy=day')).json<{ totals: unknown; byDay: unknown }>()).toEqual(before);
    });

    it('is operator-only (client key 403, no key 401); it takes no input, so a body is ignored', async () => {
      expect((await rebuild({ 'x-api-key': acme.clientKey })).statusCode).toBe(403);
      expect((await rebuild({})).statusCode).toBe(401);
      expect((await rebuild({ 'x-api-key': acme.operatorKey }, { tenantId: other.id })).statusCode).toBe(200);
    });
  });

  describe('GET /admin/monitoring/stats', () => {
    it('computes the known counts over the default window (last 30 days, tenant time zone)', async () => {
      // Restrict to the seeded sessions: the N+1 test above may have added more, so use an explicit window built in SQL.
      const res = await op('/admin/monitoring/stats');
      expect(res.statusCode).toBe(200);
      const body = res.json<{ timeZone: string; groupBy: string | null; totals: Record<string, unknown>; byDay?: unknown }>();
      expect(body.timeZone).toBe(TZ);
      expect(body.groupBy).toBeNull();
      expect(body.byDay).toBeUndefined();
      const extra = (
        await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM diagnosis_session WHERE tenant_id = $1 AND query LIKE 'q%'`, [acme.id])
      ).rows[0]!.n;
      const totals = body.totals as {
        sessions: number;
        byStatus: Record<string, number>;
        decisionReasons: Record<string, number>;
        routedSessions: number;
        clarifyRate: number;
        judge: { calls: number; callRate: number; tokens: number };
        selfEvaluation: Record<string, { count: number; meanConfidence: number }>;
        coverage: { evaluated: number; covered: number; rate: number };
        feedback: { useful: number; notUseful: number };
        latencyMs: { count: number; p50: number; p95: number };
      };
      expect(totals.sessions).toBe(6 + extra);
      expect(totals.byStatus).toEqual({ PENDING: 0, RUNNING: 0, SUCCESS: 4 + extra, FAILED: 1, BAD_CASE: 1 });
      expect(totals.decisionReasons).toEqual({ rule_high_confidence: 1, llm_judge: 1, semantic_fallback: 1, no_match: 1 });
      expect(totals.routedSessions).toBe(4);
      expect(totals.clarifyRate).toBeCloseTo(0.25);
      expect(totals.judge).toEqual({ calls: 1, callRate: 0.25, tokens: 120 });
      expect(totals.feedback).toEqual({ useful: 1, notUseful: 1 });
      expect(totals.latencyMs).toEqual({ count: 5, p50: 300, p95: 480 });
      expect(totals.selfEvaluation.llm).toEqual({ count: 2, meanConfidence: 65 });
      // s1 80, s3 0, s4 70 by SQL; the extra sessions carry the evaluation module's rule score.
      expect(totals.selfEvaluation.rule!.count).toBe(3 + extra);
      // Coverage v1: s1 covered, s2 uncovered (no-answer phrase), s4 covered, s5 uncovered (searched, no refs),
      // s6 covered (non-knowledge); s3 FAILED is not evaluated; the extra sessions have references (covered).
      expect(totals.coverage).toEqual({ evaluated: 5 + extra, covered: 3 + extra, rate: (3 + extra) / (5 + extra) });
    });

    it("groupBy=day buckets by the tenant's day; explicit windows include whole days", async () => {
      const jan = await op('/admin/monitoring/stats?from=2026-01-11&to=2026-01-11&groupBy=day');
      expect(jan.statusCode).toBe(200);
      const body = jan.json<{
        from: string;
        to: string;
        totals: { sessions: number; coverage: { evaluated: number } };
        byDay: { date: string; sessions: number; latencyMs: { p50: number } }[];
      }>();
      expect(body.from).toBe('2026-01-10T16:00:00.000000Z');
      expect(body.to).toBe('2026-01-11T16:00:00.000000Z');
      expect(body.totals.sessions).toBe(1);
      expect(body.totals.coverage.evaluated).toBe(1);
      expect(body.byDay).toEqual([expect.objectContaining({ date: '2026-01-11', sessions: 1, latencyMs: { count: 1, p50: 50, p95: 50 } })]);
      const utcDay = (await op('/admin/monitoring/stats?from=2026-01-10&to=2026-01-10')).json<{ totals: { sessions: number } }>();
      expect(utcDay.totals.sessions).toBe(0);
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: TZ, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
      const recent = (await op('/admin/monitoring/stats?groupBy=day')).json<{ byDay: { date: string }[] }>();
      expect(recent.byDay.map((d) => d.date)).toEqual([today]);
    });

    it('an empty window has zeros and null rates', async () => {
      const res = await op('/admin/monitoring/stats?from=2020-01-01&to=2020-01-31&groupBy=day');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        totals: {
          sessions: 0,
          clarifyRate: null,
          judge: { calls: 0, callRate: null, tokens: 0 },
          coverage: { evaluated: 0, rate: null },
          latencyMs: { count: 0, p50: null, p95: null },
        },
        byDay: [],
      });
    });

    it('is tenant-scoped', async () => {
      const body = (await op('/admin/monitoring/stats', other)).json<{ totals: { sessions: number; latencyMs: { p50: number } } }>();
      expect(body.totals.sessions).toBe(1);
      expect(body.totals.latencyMs.p50).toBe(9999);
    });

    it.each(['groupBy=week', 'groupBy=', 'from=2026-02-30', 'to=soon', 'from=2026-03-02&to=2026-03-01', 'from=2024-01-01&to=2026-01-01', 'unknown=1'])(
      'rejects %s with 400',
      async (query) => {
        expect((await op(`/admin/monitoring/stats?${query}`)).statusCode).toBe(400);
      },
    );

    it("agreement: Cohen's κ of self-evaluation and coverage against the window's feedback, per tenant, with the threshold", async () => {
      interface Agreement {
        table: { goodUseful: number; goodNotUseful: number; badUseful: number; badNotUseful: number };
        n: number;
        observedAgreement: number | null;
        expectedAgreement: number | null;
        kappa: number | null;
      }
      type Body = { agreement: { period: string; selfEvaluationThreshold: number; selfEvaluation: Agreement; coverage: Agreement } };
      const get = async (query: string, tenant: TestTenant = acme): Promise<Body['agreement']> => {
        const res = await op(`/admin/monitoring/stats?agreement=true${query.replace('?', '&')}`, tenant);
        expect(res.statusCode).toBe(200);
        return res.json<Body>().agreement;
      };
      // Feedback: s4 useful (self-evaluation 70, covered), s5 not useful (40, uncovered: searched, no references).
      const perfect = {
        table: { goodUseful: 1, goodNotUseful: 0, badUseful: 0, badNotUseful: 1 },
        n: 2,
        observedAgreement: 1,
        expectedAgreement: 0.5,
        kappa: 1,
      };
      expect(await get('')).toEqual({ period: 'feedback', selfEvaluationThreshold: 0.6, selfEvaluation: perfect, coverage: perfect });
      // opt-in: the plain stats read rollups only and carry no agreement
      expect((await op('/admin/monitoring/stats')).json<Record<string, unknown>>().agreement).toBeUndefined();
      expect((await op('/admin/monitoring/stats?agreement=yes')).statusCode).toBe(400);
      // 0.4: both "good" (40 / 100 >= 0.4 — the boundary counts as good) → the self-evaluation side is constant, κ 0.
      expect((await get('?selfEvaluationThreshold=0.4')).selfEvaluation).toEqual({
        table: { goodUseful: 1, goodNotUseful: 1, badUseful: 0, badNotUseful: 0 },
        n: 2,
        observedAgreement: 0.5,
        expectedAgreement: 0.5,
        kappa: 0,
      });
      const strict = await get('?selfEvaluationThreshold=1');
      expect(strict.selfEvaluationThreshold).toBe(1);
      expect(strict.selfEvaluation.table).toEqual({ goodUseful: 0, goodNotUseful: 0, badUseful: 1, badNotUseful: 1 });
      expect(strict.coverage).toEqual(perfect);
      // The period is the feedback's time: a window without feedback has n = 0 and κ null.
      const none = {
        table: { goodUseful: 0, goodNotUseful: 0, badUseful: 0, badNotUseful: 0 },
        n: 0,
        observedAgreement: null,
        expectedAgreement: null,
        kappa: null,
      };
      expect(await get('?from=2020-01-01&to=2020-01-31')).toMatchObject({ selfEvaluation: none, coverage: none });
      // Another tenant's feedback never counts (the other tenant has none).
      expect(await get('', other)).toMatchObject({ selfEvaluation: none, coverage: none });
    });

    it.each(['1.5', '-0.1', 'abc', '', 'NaN', '0.5&selfEvaluationThreshold=0.6'])('rejects selfEvaluationThreshold=%s with a 400 naming it', async (value) => {
      const res = await op(`/admin/monitoring/stats?selfEvaluationThreshold=${value}`);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ details: { fields: string[] } }>().details.fields).toEqual(['selfEvaluationThreshold']);
    });

    it('needs an operator key: client 403, none 401', async () => {
      expect((await t.request({ method: 'GET', url: '/admin/monitoring/stats', headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: '/admin/monitoring/stats' })).statusCode).toBe(401);
    });
  });
});
