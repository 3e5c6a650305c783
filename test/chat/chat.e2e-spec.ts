import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { triggerDdl } from '@arbiter/testing';
import { isBackgroundStatement, roundTripCounter } from '../support/round-trips.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Deterministic rules (keyword hits → `rule_high_confidence`) so each branch is reached on purpose. */
const RULES = [
  {
    intent: 'greeting',
    description: '打招呼 / greetings',
    keywords: ['你好', 'hello'],
    semanticExamples: ['你好', 'hello there'],
    action: 'answer',
    reply: '您好，我是 Arbiter 演示助手。',
    priority: 1,
  },
  {
    intent: 'human_agent',
    description: '转人工 / human agent',
    keywords: ['转人工', 'human agent'],
    semanticExamples: ['我要找人工客服', 'let me talk to a person'],
    action: 'transfer',
    priority: 20,
  },
  {
    intent: 'fault',
    description: '故障报警排查 / alarms and faults',
    keywords: ['报警', 'alarm'],
    semanticExamples: ['机械臂报警了怎么办', 'the arm shows an alarm'],
    action: 'knowledge',
    confidenceProfile: 'search',
    priority: 10,
  },
  {
    intent: 'firmware',
    description: '固件升级 / firmware upgrade',
    keywords: ['固件', 'firmware'],
    semanticExamples: ['怎么升级固件', 'how to upgrade the firmware'],
    action: 'knowledge',
    priority: 10,
  },
];

interface ChatBody {
  sessionId: string;
  conversationId: string;
  reply: string;
  confidence: number;
  routingConfidence: number;
  retrievalConfidence: number | null;
  answerConfidence: number | null;
  shouldTransfer: boolean;
  needClarify: boolean;
  candidates: { intent: string; confidence: number }[];
  intent: string | null;
  references: { filePath: string; title: string; similarity: number; relevanceLevel: string }[];
}

interface SessionViewBody {
  id: string;
  status: string;
  intent: string | null;
  answer: string | null;
  stepCount: number;
  toolCallCount: number;
  knowledgeSearched: boolean;
  references: { documentId?: string; filePath?: string; title?: string; score: number }[];
  selfEvaluation: { source: string; confidence: number } | null;
  coverage: { verdict: string; reasonCode: string } | null;
}

interface ChatTraceRow {
  route_trace: {
    finalIntent: string | null;
    finalConfidence: number;
    decisionReason: string;
    needClarify: boolean;
    fusion: { decisionReason: string };
    ruleMatch: unknown;
    chat: {
      branch: string;
      language: string;
      mode: string;
      events: string[];
      policy?: { action: string; reason: string; shouldTransfer: boolean };
      confidence: { source: string; score: number };
      lookups: {
        relevanceLevel: string;
        completenessHint: string | null;
        dedupReason: string | null;
        query: string;
        domain?: string;
        resultDomain?: string | null;
        resultFilePaths: string[];
        alreadyCitedFilePaths: string[];
        confidence: { score: number };
      }[];
      carriedReferences?: string[];
      followUp?: {
        message: string;
        query: string;
        by: string;
        topic: string;
        repeat: boolean;
        historyTurns: number;
        carried: { intent: string | null; domain: string | null };
      };
    };
  };
  status: string;
  error: string | null;
}

const E201 = 'faults/e201-servo-overcurrent.md';
const E202 = 'faults/e202-encoder-communication.md';

describe('POST /ai/chat offline (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;
  let picky: TestTenant;

  const chat = (tenant: TestTenant, payload: Record<string, unknown>, key: 'clientKey' | 'operatorKey' = 'clientKey') =>
    t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': tenant[key] }, payload });
  const ok = async (tenant: TestTenant, payload: Record<string, unknown>): Promise<ChatBody> => {
    const res = await chat(tenant, payload);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return res.json<ChatBody>();
  };
  const view = async (tenant: TestTenant, id: string) => {
    const res = await t.request({ method: 'GET', url: `/api/sessions/${id}`, headers: { 'x-api-key': tenant.clientKey } });
    expect(res.statusCode).toBe(200);
    return res.json<SessionViewBody>();
  };
  const trace = async (sessionId: string) =>
    (await t.db.pool.query<ChatTraceRow>('SELECT route_trace, status, error FROM diagnosis_session WHERE id = $1', [sessionId])).rows[0]!;
  const invocations = async (sessionId: string) =>
    (
      await t.db.pool.query<{
        tool_name: string;
        status: string;
        relevance_level: string | null;
        dedup_reason: string | null;
        retrieval_details: { result_file_paths: string[] } | null;
        arguments: Record<string, unknown>;
      }>(
        'SELECT tool_name, status, relevance_level, dedup_reason, retrieval_details, arguments FROM tool_invocation WHERE session_id = $1 ORDER BY created_at',
        [sessionId],
      )
    ).rows;
  const count = async (table: string) => (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

  const seed = async (tenant: TestTenant) => {
    for (const rule of RULES) {
      const res = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: { 'x-api-key': tenant.operatorKey }, payload: rule });
      expect([res.statusCode, res.body.slice(0, 200)]).toEqual([201, expect.any(String)]);
    }
    const bulk = await t.request({
      method: 'POST',
      url: '/admin/knowledge/documents/bulk',
      headers: { 'x-api-key': tenant.operatorKey },
      payload: DEMO_KNOWLEDGE as unknown as Record<string, unknown>[],
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json<{ summary: { created: number } }>().summary.created).toBe(DEMO_KNOWLEDGE.length);
  };

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant('chat-acme');
    globex = await t.createTenant('chat-globex');
    picky = await t.createTenant('chat-picky');
    await seed(acme);
    await seed(picky);
    // A tenant whose router asks for clarification below 0.99: every non-certain routing clarifies.
    const cfg = await t.request({
      method: 'PUT',
      url: '/admin/intent-config',
      headers: { 'x-api-key': picky.operatorKey },
      payload: { clarifyThreshold: 0.99, minTriggerThreshold: 0.01, llmJudgeEnabled: false },
    });
    expect([cfg.statusCode, cfg.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  it('answers an `answer` intent with its rule reply (routing confidence, no knowledge search)', async () => {
    const body = await ok(acme, { message: '你好' });
    expect(body).toMatchObject({ reply: '您好，我是 Arbiter 演示助手。', intent: 'greeting', shouldTransfer: false, needClarify: false, references: [] });
    const row = await trace(body.sessionId);
    expect(body.confidence).toBeCloseTo(row.route_trace.finalConfidence, 6);
    expect(body.routingConfidence).toBeCloseTo(row.route_trace.finalConfidence, 6);
    expect(body.retrievalConfidence).toBeNull();
    expect(row.route_trace).toMatchObject({
      finalIntent: 'greeting',
      decisionReason: 'rule_high_confidence',
      fusion: { decisionReason: 'rule_high_confidence' },
      chat: { branch: 'rule_answer', confidence: { source: 'routing' }, lookups: [] },
    });
    expect(await invocations(body.sessionId)).toEqual([]);
    const v = await view(acme, body.sessionId);
    expect(v).toMatchObject({
      status: 'SUCCESS',
      intent: 'greeting',
      answer: body.reply,
      knowledgeSearched: false,
      toolCallCount: 0,
      references: [],
      selfEvaluation: { source: 'rule' },
      coverage: { verdict: 'covered', reasonCode: 'covered_non_knowledge_response' },
    });
    expect(body.answerConfidence).toBeCloseTo(v.selfEvaluation!.confidence / 100, 6);
  });

  it('hands off a `transfer` intent in the user language with shouldTransfer', async () => {
    const zh = await ok(acme, { message: '帮我转人工' });
    expect(zh).toMatchObject({ intent: 'human_agent', shouldTransfer: true, needClarify: false, references: [] });
    expect(zh.reply).toMatch(/人工客服/);
    const en = await ok(acme, { message: 'Please get me a human agent' });
    expect(en).toMatchObject({ intent: 'human_agent', shouldTransfer: true });
    expect(en.reply).toMatch(/transferring you to a human agent/);
    expect((await trace(en.sessionId)).route_trace.chat).toMatchObject({ branch: 'transfer', language: 'en' });
    expect(await view(acme, en.sessionId)).toMatchObject({ status: 'SUCCESS', intent: 'human_agent', knowledgeSearched: false });
  });

  it('asks a clarifying question listing the candidates, without searching', async () => {
    const before = await count('tool_invocation');
    const body = await ok(picky, { message: '机械臂报警了，固件要不要升级？' });
    expect(body.needClarify).toBe(true);
    expect(body.candidates.length).toBeGreaterThan(0);
    expect(body.references).toEqual([]);
    expect(body.reply).toMatch(/^为了更准确地帮助您，请问您想咨询的是以下哪一项？\n1\. /);
    // Candidates are listed by their rule descriptions.
    const labels = RULES.filter((r) => body.candidates.some((c) => c.intent === r.intent)).map((r) => r.description);
    for (const label of labels) expect(body.reply).toContain(label);
    const row = await trace(body.sessionId);
    expect(row.route_trace).toMatchObject({ needClarify: true, chat: { branch: 'clarify', lookups: [], confidence: { source: 'routing' } } });
    expect(body.confidence).toBeCloseTo(row.route_trace.finalConfidence, 6);
    expect(await count('tool_invocation')).toBe(before);
    expect(await view(picky, body.sessionId)).toMatchObject({ status: 'SUCCESS', knowledgeSearched: false, toolCallCount: 0 });
  });

  it('answers from the knowledge base with references, records the lookup and the confidence event', async () => {
    const body = await ok(acme, { message: '机械臂报警 E201 怎么处理？' });
    expect(body.intent).toBe('fault');
    expect(body.needClarify).toBe(false);
    expect(body.shouldTransfer).toBe(false);
    expect(body.references[0]).toMatchObject({ filePath: E201, title: 'E201 伺服过流报警', relevanceLevel: 'PRECISE' });
    expect(body.references[0]!.similarity).toBeGreaterThan(0);
    expect(body.reply).toContain('根据知识库资料');
    expect(body.reply).toContain('2. 关闭控制柜主电源'); // the procedure is quoted whole
    expect(body.reply).toContain(`参考资料：\n[1] E201 伺服过流报警 (${E201})`);
    const row = await trace(body.sessionId);
    const chatTrace = row.route_trace.chat;
    expect(chatTrace).toMatchObject({ branch: 'knowledge', mode: 'offline', language: 'zh', confidence: { source: 'retrieval' } });
    expect(body.confidence).toBeCloseTo(chatTrace.confidence.score, 6);
    expect(body.retrievalConfidence).toBeCloseTo(chatTrace.confidence.score, 6);
    expect(body.routingConfidence).toBeCloseTo(row.route_trace.finalConfidence, 6);
    expect(chatTrace.events).toHaveLength(1);
    expect(chatTrace.events[0]).toMatch(/^(high|medium)-confidence$/);
    // A PRECISE lookup is answered without a caveat whatever its count-driven score (brief §4.3, 2026-12-01).
    expect(chatTrace.policy?.action).toBe('answer');
    expect(body.reply).not.toMatch(/仅供参考|提示：/);
    expect(chatTrace.lookups).toEqual([expect.objectContaining({ relevanceLevel: 'PRECISE', completenessHint: null, dedupReason: null })]);
    const inv = await invocations(body.sessionId);
    expect(inv).toEqual([expect.objectContaining({ tool_name: 'lookup_knowledge', status: 'SUCCESS', relevance_level: 'PRECISE', dedup_reason: null })]);
    expect(inv[0]!.retrieval_details!.result_file_paths).toContain(E201);
    const v = await view(acme, body.sessionId);
    expect(v).toMatchObject({
      status: 'SUCCESS',
      intent: 'fault',
      answer: body.reply,
      knowledgeSearched: true,
      stepCount: 1,
      toolCallCount: 1,
      coverage: { verdict: 'covered', reasonCode: 'covered_has_references' },
    });
    expect(v.references).toEqual(body.references.map((r) => expect.objectContaining({ filePath: r.filePath, title: r.title, score: r.similarity })));
    expect(v.selfEvaluation).toMatchObject({ source: 'rule' });
    expect(body.answerConfidence).toBeCloseTo(v.selfEvaluation!.confidence / 100, 6);
  });

  it.each([
    ['zh', '请问贵公司食堂的菜单是什么样的？', /未找到.*建议您联系技术支持/s],
    ['en', 'My kitchen smoke alarm keeps beeping at night', /no relevant material was found.*未找到相关资料.*contact technical support/s],
  ])('takes the legitimate exit (%s) when the knowledge base has nothing, and coverage counts it as uncovered', async (lang, message, pattern) => {
    const body = await ok(acme, { message });
    expect(body.reply).toMatch(pattern);
    expect(body).toMatchObject({ shouldTransfer: true, needClarify: false, references: [] });
    const row = await trace(body.sessionId);
    expect(row.route_trace.chat).toMatchObject({ branch: 'knowledge', language: lang, policy: { action: 'legitimate_exit', shouldTransfer: true } });
    expect(row.route_trace.chat.lookups[0]).toMatchObject({ completenessHint: 'INSUFFICIENT' });
    // "Not found" carries no answer: `confidence` 0, never the router's certainty; each measure by name.
    expect(row.route_trace.chat.confidence).toMatchObject({ source: 'not_found', score: 0 });
    expect(body.confidence).toBe(0);
    expect(body.routingConfidence).toBeCloseTo(row.route_trace.finalConfidence, 6);
    expect(body.routingConfidence).toBeGreaterThan(0);
    expect(body.retrievalConfidence).toBeCloseTo(row.route_trace.chat.lookups[0]!.confidence.score, 6);
    const v = await view(acme, body.sessionId);
    expect(v).toMatchObject({
      status: 'SUCCESS',
      knowledgeSearched: true,
      toolCallCount: 1,
      references: [],
      coverage: { verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer' },
    });
  });

  it('continues a conversation: a new question about a cited document quotes it again; only a repeat is "already provided"', async () => {
    const first = await ok(acme, { message: 'E201 报警怎么处理' });
    expect(first.references.map((r) => r.filePath)).toEqual([E201]);

    // Same conversation, E201 still alarming plus E202: a new question, so both documents are quoted (docs/spec/retrieval.md §4 deviation).
    const second = await ok(acme, { message: 'E201 还是报警，现在 E202 也报警了', conversationId: first.conversationId });
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.references.map((r) => r.filePath)).toEqual(expect.arrayContaining([E201, E202]));
    const inv2 = await invocations(second.sessionId);
    // Two codes in one message: the exact hits are evidence in the calibrated grade, not a verdict
    // (docs/retrieval.md "Grading"), so this lookup is graded REFERENCE/PARTIAL, not PRECISE.
    expect(inv2).toEqual([
      expect.objectContaining({
        tool_name: 'lookup_knowledge',
        relevance_level: 'REFERENCE',
        retrieval_details: expect.objectContaining({ completeness_hint: 'PARTIAL' }),
      }),
    ]);
    expect((await trace(second.sessionId)).route_trace.chat.lookups[0]).toMatchObject({ alreadyCitedFilePaths: [] });
    expect((await trace(second.sessionId)).route_trace.chat.followUp).toMatchObject({ by: 'none', repeat: false, historyTurns: 1 });

    // The first question again (its words, nothing new): everything exact was given before → point back instead of quoting padding.
    const third = await ok(acme, { message: 'E201 报警', conversationId: first.conversationId });
    expect(third.references).toEqual([]);
    expect((await trace(third.sessionId)).route_trace.chat.followUp).toMatchObject({ query: 'E201 报警', by: 'none', repeat: true });
    expect(third.reply).toMatch(/已在本次对话的前面回答中提供（《E201 伺服过流报警》/);
    expect((await trace(third.sessionId)).route_trace.chat.policy).toMatchObject({ action: 'already_provided', reason: 'strong_results_already_given' });
    // The pointer back is not a knowledge gap: the session carries the earlier references the reply names
    // (E201 with the first turn's stored reference).
    const firstView = await view(acme, first.sessionId);
    const thirdView = await view(acme, third.sessionId);
    expect(thirdView.references).toContainEqual(firstView.references.find((r) => r.filePath === E201));
    for (const ref of thirdView.references) expect(third.reply).toContain(`《${ref.title}》`);
    expect(thirdView.coverage).toMatchObject({ verdict: 'covered', reasonCode: 'covered_has_references' });
    expect((await trace(third.sessionId)).route_trace.chat.carriedReferences).toEqual(thirdView.references.map((r) => r.filePath));
    const gaps = await t.request({ method: 'GET', url: '/admin/coverage/gaps', headers: { 'x-api-key': acme.operatorKey } });
    expect(gaps.statusCode).toBe(200);
    expect(gaps.json<{ items: { sampleSessionIds: string[] }[] }>().items.flatMap((g) => g.sampleSessionIds)).not.toContain(third.sessionId);

    // A new conversation starts with a fresh memory.
    const fresh = await ok(acme, { message: 'E201 报警怎么处理' });
    expect(fresh.conversationId).not.toBe(first.conversationId);
    expect(fresh.references.map((r) => r.filePath)).toEqual([E201]);

    // The operator's conversation detail shows every turn with its trace and tool invocations.
    const detail = await t.request({
      method: 'GET',
      url: `/admin/monitoring/conversations/${first.conversationId}`,
      headers: { 'x-api-key': acme.operatorKey },
    });
    expect(detail.statusCode).toBe(200);
    const sessions = detail.json<{ sessions: { id: string; routeTrace: { chat?: unknown } | null; toolInvocations: unknown[]; status: string }[] }>().sessions;
    expect(sessions.map((s) => s.id)).toEqual([first.sessionId, second.sessionId, third.sessionId]);
    for (const s of sessions) {
      expect(s.status).toBe('SUCCESS');
      expect(s.routeTrace?.chat).toBeDefined();
      expect(s.toolInvocations).toHaveLength(1);
    }
  });

  it('remembers the conversation: follow-ups are resolved to standalone questions and answered from the earlier document (zh)', async () => {
    const first = await ok(acme, { message: '机械臂报警 E201 怎么处理？' });
    expect(first.references.map((r) => r.filePath)).toEqual([E201]);
    const conversationId = first.conversationId;

    // "Still not working": the same topic again, answered from E201 (not "already provided"), E201 in `references`.
    const still = await ok(acme, { message: '还是不行', conversationId });
    expect(still.references.map((r) => r.filePath)).toContain(E201);
    expect(still.reply).not.toMatch(/已在本次对话的前面回答中提供/);
    const stillTrace = (await trace(still.sessionId)).route_trace.chat;
    expect(stillTrace.followUp).toEqual({
      message: '还是不行',
      query: '机械臂报警 E201 怎么处理？ 还是不行',
      search: '机械臂报警 E201 怎么处理？',
      by: 'still_failing',
      topic: '机械臂报警 E201 怎么处理？',
      carried: { intent: 'fault', domain: 'fault-codes' },
      repeat: false,
      historyTurns: 1,
      modelHistoryMessages: 2,
    });
    // The lookup searched the topic; E201 was not withheld.
    expect(stillTrace.lookups[0]).toMatchObject({ query: '机械臂报警 E201 怎么处理？', resultDomain: 'fault-codes', alreadyCitedFilePaths: [] });
    expect(stillTrace.lookups[0]).not.toHaveProperty('domain');
    expect(still.intent).toBe('fault');

    // "那 E202 呢？": the earlier question about E202.
    const e202 = await ok(acme, { message: '那 E202 呢？', conversationId });
    expect(e202.references[0]?.filePath).toBe(E202);
    expect((await trace(e202.sessionId)).route_trace.chat.followUp).toMatchObject({ query: '机械臂报警 E202 怎么处理？', by: 'code_swap', historyTurns: 2 });

    // "为什么会这样？": the cause, about the latest topic (E202), answered from E202 again.
    const why = await ok(acme, { message: '为什么会这样？', conversationId });
    expect(why.references.map((r) => r.filePath)).toContain(E202);
    expect((await trace(why.sessionId)).route_trace.chat.followUp).toMatchObject({
      query: '机械臂报警 E202 怎么处理？ 为什么会这样？',
      by: 'cause',
      repeat: false,
    });

    // The first question again: "already provided", nothing quoted again.
    const repeat = await ok(acme, { message: '机械臂报警 E201 怎么处理？', conversationId });
    expect(repeat.references).toEqual([]);
    expect(repeat.reply).toMatch(/已在本次对话的前面回答中提供（《E201 伺服过流报警》/);
    const repeatTrace = (await trace(repeat.sessionId)).route_trace.chat;
    console.log(JSON.stringify(repeatTrace, null, 1));
    expect(repeatTrace.followUp).toMatchObject({ by: 'none', repeat: true, historyTurns: 4 });
    expect(repeatTrace.policy).toMatchObject({ action: 'already_provided' });
  });

  it('remembers the conversation (en): "why does that happen?", "what is the next step?" and "what about the warranty?"', async () => {
    const ROBOSTUDIO = 'controller/robostudio-offline.md';
    // A tenant of its own whose router never asks to clarify (nothing below .95 triggers an intent): these turns go to the knowledge base.
    const tenant = await t.createTenant('chat-memory-en');
    await seed(tenant);
    const cfg = await t.request({
      method: 'PUT',
      url: '/admin/intent-config',
      headers: { 'x-api-key': tenant.operatorKey },
      payload: { minTriggerThreshold: 0.95, clarifyThreshold: 0.95, llmJudgeEnabled: false },
    });
    expect([cfg.statusCode, cfg.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
    const first = await ok(tenant, { message: 'RoboStudio cannot connect to the controller, what should I check?' });
    expect(first.references[0]?.filePath).toBe(ROBOSTUDIO);
    const why = await ok(tenant, { message: 'why does that happen?', conversationId: first.conversationId });
    expect(why.references.map((r) => r.filePath)).toContain(ROBOSTUDIO);
    expect((await trace(why.sessionId)).route_trace.chat.followUp).toMatchObject({
      by: 'cause',
      query: 'RoboStudio cannot connect to the controller, what should I check? why does that happen?',
      repeat: false,
    });
    const next = await ok(tenant, { message: "what's the next step?", conversationId: first.conversationId });
    expect(next.references.map((r) => r.filePath)).toContain(ROBOSTUDIO);
    expect((await trace(next.sessionId)).route_trace.chat.followUp).toMatchObject({ by: 'next_step', repeat: false });
    const warranty = await ok(tenant, { message: 'what about the warranty?', conversationId: first.conversationId });
    expect(warranty.references[0]?.filePath).toBe('orders/warranty-policy.md');
    expect((await trace(warranty.sessionId)).route_trace.chat.followUp).toMatchObject({
      by: 'what_about',
      query: 'the warranty',
      carried: { intent: null, domain: null },
    });
  });

  it('answers English questions in English', async () => {
    const body = await ok(acme, { message: 'The robot shows alarm E202, what should I check?' });
    expect(body.reply).toMatch(/^(Note: .*\n)?According to the knowledge base:/);
    expect(body.reply).toContain('Sources:');
    expect(body.references[0]).toMatchObject({ filePath: E202 });
  });

  it('keeps channel, userRef and media on the session', async () => {
    const body = await ok(acme, { message: 'E105 报警', channel: 'wechat', userRef: 'u-42', media: [{ type: 'image', url: 'https://cdn.example.com/a.png' }] });
    const res = await t.request({ method: 'GET', url: `/api/sessions/${body.sessionId}`, headers: { 'x-api-key': acme.clientKey } });
    expect(res.json()).toMatchObject({
      channel: 'wechat',
      media: [{ type: 'image', url: 'https://cdn.example.com/a.png' }],
      coverage: { reasonCode: 'covered_has_references' },
    });
  });

  describe('database round trips of one turn (docs/hot-paths.md "Chat turn")', () => {
    /** Steady state (API key and intent rules cached): at most this many round trips per turn kind. */
    const BUDGET = { knowledge: 4, clarify: 2, rule_answer: 2, transfer: 2 } as const;
    /** Timers and background checks of the process are not the turn's (`isBackgroundStatement`). */
    const background = isBackgroundStatement;

    it.each([
      ['knowledge', 'acme', { message: '机械臂报警 E105 怎么处理？' }, false],
      ['knowledge', 'acme', { message: 'E050 急停回路断开报警怎么办？' }, true],
      ['clarify', 'picky', { message: '机械臂报警了，固件要不要升级？' }, false],
      ['rule_answer', 'acme', { message: '你好' }, false],
      ['transfer', 'acme', { message: '帮我转人工' }, false],
    ] as const)('%s turn (case %#)', async (kind, tenantName, payload, continued) => {
      const tenant = tenantName === 'acme' ? acme : picky;
      const warm = await ok(tenant, payload); // warm: the key and the rules are cached after the first turn
      // A continued conversation also reads the documents it already cited (in the start statement).
      const measured = continued ? { ...payload, conversationId: warm.conversationId } : payload;
      const counter = roundTripCounter(t.app);
      try {
        const { result, trips } = await counter.measure(() => ok(tenant, measured));
        const statements = trips.statements.filter((sql) => !background(sql));
        expect((await trace(result.sessionId)).route_trace.chat).toMatchObject({ branch: kind });
        // On failure the statements are listed.
        expect([kind, statements.length, statements]).toEqual([kind, Math.min(statements.length, BUDGET[kind]), statements]);
        // The finish hooks ran once, in the finish statement.
        expect(await view(tenant, result.sessionId)).toMatchObject({
          status: 'SUCCESS',
          selfEvaluation: { source: 'rule' },
          coverage: { evaluatorVersion: 'v1' },
        });
        const hooks = await t.db.pool.query<{ hooks_done: boolean; n: number }>(
          'SELECT s.hooks_done, (SELECT count(*)::int FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id) AS n FROM diagnosis_session s WHERE s.id = $1',
          [result.sessionId],
        );
        expect(hooks.rows[0]).toEqual({ hooks_done: true, n: 1 });
      } finally {
        counter.restore();
      }
    });
  });

  describe('bad input', () => {
    it.each([
      ['empty message', { message: '' }, 'message'],
      ['blank message', { message: '   \n ' }, 'message'],
      ['missing message', {}, 'message'],
      ['message over 4,000 characters', { message: '机'.repeat(4001) }, 'message'],
      ['malformed conversationId', { message: 'hi', conversationId: 'abc' }, 'conversationId'],
      ['unknown media type', { message: 'hi', media: [{ type: 'hologram' }] }, 'media'],
      ['bad channel', { message: 'hi', channel: 'we chat!' }, 'channel'],
      ['unknown field', { message: 'hi', extra: 1 }, 'extra'],
    ])('%s → 400 naming the field, nothing written', async (_name, payload, field) => {
      const before = await count('diagnosis_session');
      const res = await chat(acme, payload);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(field);
      expect(await count('diagnosis_session')).toBe(before);
    });

    it('accepts exactly 4,000 characters', async () => {
      const res = await chat(acme, { message: `E201 ${'报'.repeat(3995)}` });
      expect(res.statusCode).toBe(200);
    });

    it("another tenant's conversation → 404, nothing written, nothing leaked", async () => {
      const mine = await ok(acme, { message: 'E201 报警怎么处理' });
      const before = await count('diagnosis_session');
      const res = await chat(globex, { message: 'E201', conversationId: mine.conversationId });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'CONVERSATION_NOT_FOUND' });
      expect(res.body).not.toContain('E201 伺服过流报警');
      expect(await count('diagnosis_session')).toBe(before);
      const unknown = await chat(acme, { message: 'E201', conversationId: '00000000-0000-4000-8000-000000000000' });
      expect(unknown.statusCode).toBe(404);
    });

    it('needs a tenant key: missing or wrong → 401; an operator key may chat', async () => {
      expect((await t.request({ method: 'POST', url: '/ai/chat', payload: { message: '你好' } })).statusCode).toBe(401);
      expect((await t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': 'nope' }, payload: { message: '你好' } })).statusCode).toBe(401);
      expect((await chat(acme, { message: '你好' }, 'operatorKey')).statusCode).toBe(200);
    });

    it("a tenant without rules or knowledge still answers (the legitimate exit), and never sees another tenant's documents", async () => {
      const body = await ok(globex, { message: 'E201 报警怎么处理' });
      expect(body).toMatchObject({ intent: null, references: [], shouldTransfer: true });
      expect(body.reply).toMatch(/未找到/);
    });
  });

  describe('failing database', () => {
    const withTrigger = async (table: string, timing: string, sqlstate: string, fn: () => Promise<void>) => {
      await t.db.pool.query(
        `CREATE OR REPLACE FUNCTION chat_test_fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated outage' USING ERRCODE = '${sqlstate}'; END $$`,
      );
      await triggerDdl(t.db, `CREATE TRIGGER chat_test_fail ${timing} ON ${table} FOR EACH ROW EXECUTE FUNCTION chat_test_fail()`);
      try {
        await fn();
      } finally {
        await triggerDdl(t.db, `DROP TRIGGER IF EXISTS chat_test_fail ON ${table}`);
      }
    };

    it('database unavailable when the turn starts → 503, no conversation and no session written', async () => {
      const before = { c: await count('conversation'), s: await count('diagnosis_session'), i: await count('tool_invocation') };
      await withTrigger('diagnosis_session', 'BEFORE INSERT', '57P03', async () => {
        const res = await chat(acme, { message: 'E201 报警怎么处理' });
        expect(res.statusCode).toBe(503);
      });
      expect({ c: await count('conversation'), s: await count('diagnosis_session'), i: await count('tool_invocation') }).toEqual(before);
      // And the next request works again.
      expect((await chat(acme, { message: '你好' })).statusCode).toBe(200);
    });

    it('database unavailable mid-turn → 503 with the session id, and the session is closed FAILED (never left RUNNING)', async () => {
      let sessionId = '';
      await withTrigger('tool_invocation', 'BEFORE INSERT', '57P01', async () => {
        const res = await chat(acme, { message: 'E201 报警怎么处理' });
        expect(res.statusCode).toBe(503);
        const err = res.json<{ code: string; details: { sessionId: string; sessionClosed: boolean } }>();
        expect(err).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: { sessionClosed: true } });
        sessionId = err.details.sessionId;
      });
      const row = await trace(sessionId);
      expect(row.status).toBe('FAILED');
      expect(row.error).toMatch(/simulated outage/);
      expect(await t.db.pool.query('SELECT 1 FROM diagnosis_session WHERE status = $1', ['RUNNING']).then((r) => r.rowCount)).toBe(0);
    });

    it('any other failure → a polite reply with the sessionId, the session FAILED with the error', async () => {
      let body: ChatBody | undefined;
      await withTrigger('tool_invocation', 'BEFORE INSERT', 'P0001', async () => {
        body = await ok(acme, { message: 'E201 报警怎么处理' });
      });
      expect(body!.reply).toMatch(/抱歉，处理您的问题时出现了异常/);
      expect(body!.shouldTransfer).toBe(true);
      expect(body).toMatchObject({ confidence: 0, retrievalConfidence: null, answerConfidence: 0 });
      expect(body!.routingConfidence).toBeGreaterThan(0);
      const v = await view(acme, body!.sessionId);
      expect(v).toMatchObject({ status: 'FAILED', knowledgeSearched: true, selfEvaluation: { source: 'rule', confidence: 0 } });
      expect((await trace(body!.sessionId)).error).toMatch(/simulated outage/);
    });
  });
});
