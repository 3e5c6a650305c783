import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { postSse } from '../support/sse-client.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Keyword rules; the tenant's router clarifies below 0.99, so a message hitting two intents asks which one. */
const RULES = [
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
  {
    intent: 'greeting',
    description: '打招呼 / greetings',
    keywords: ['你好', 'hello'],
    semanticExamples: ['你好'],
    action: 'answer',
    reply: '您好，我是 Arbiter 演示助手。',
    priority: 1,
  },
];
const QUESTION = '机械臂报警了，固件要不要升级？';

interface ChatBody {
  sessionId: string;
  conversationId: string;
  reply: string;
  shouldTransfer: boolean;
  needClarify: boolean;
  candidates: { intent: string; confidence: number }[];
  intent: string | null;
  references: { filePath: string }[];
}

interface TraceRow {
  query: string;
  intent: string | null;
  route_trace: {
    finalIntent: string | null;
    decisionReason: string;
    needClarify: boolean;
    chat: {
      branch: string;
      language: string;
      clarify?: { stage: string; question: string; offered: { intent: string; label: string | null }[]; intent?: string; by?: string };
      lookups: { query: string }[];
      followUp?: { message: string; query: string; by: string; carried: { intent: string | null }; repeat: boolean };
    };
  };
}

describe('two-stage clarification over POST /ai/chat (e2e)', () => {
  let t: TestApp;
  let picky: TestTenant;
  let other: TestTenant;
  let port: number;

  const chat = (tenant: TestTenant, payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': tenant.clientKey }, payload });
  const ok = async (tenant: TestTenant, payload: Record<string, unknown>): Promise<ChatBody> => {
    const res = await chat(tenant, payload);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return res.json<ChatBody>();
  };
  const trace = async (sessionId: string) =>
    (await t.db.pool.query<TraceRow>('SELECT query, intent, route_trace FROM diagnosis_session WHERE id = $1', [sessionId])).rows[0]!;
  const sessions = async () => (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM diagnosis_session')).rows[0]!.n;

  /** A new conversation whose first turn asks which of fault / firmware the user means. */
  const clarified = async (tenant: TestTenant = picky): Promise<ChatBody> => {
    const body = await ok(tenant, { message: QUESTION });
    expect(body.needClarify).toBe(true);
    expect(body.candidates.map((c) => c.intent).sort()).toEqual(expect.arrayContaining(['fault', 'firmware']));
    return body;
  };

  beforeAll(async () => {
    t = await createTestApp();
    picky = await t.createTenant('clarify-picky');
    other = await t.createTenant('clarify-other');
    for (const tenant of [picky, other]) {
      for (const rule of RULES) {
        const res = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: { 'x-api-key': tenant.operatorKey }, payload: rule });
        expect([res.statusCode, res.body.slice(0, 200)]).toEqual([201, expect.any(String)]);
      }
      const cfg = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: { 'x-api-key': tenant.operatorKey },
        payload: { clarifyThreshold: 0.99, minTriggerThreshold: 0.01, llmJudgeEnabled: false },
      });
      expect([cfg.statusCode, cfg.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
    }
    const bulk = await t.request({
      method: 'POST',
      url: '/admin/knowledge/documents/bulk',
      headers: { 'x-api-key': picky.operatorKey },
      payload: DEMO_KNOWLEDGE as unknown as Record<string, unknown>[],
    });
    expect(bulk.statusCode).toBe(200);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  it('stores the offered intents with the clarifying turn', async () => {
    const asked = await clarified();
    const row = await trace(asked.sessionId);
    expect(row.route_trace.chat.clarify).toEqual({
      stage: 'asked',
      question: QUESTION,
      offered: asked.candidates.map((c) => ({ intent: c.intent, label: RULES.find((r) => r.intent === c.intent)!.description })),
    });
  });

  it.each([['2'], ['第二个'], ['the second one']])(
    '"%s" picks the second offered intent (clarify_resolved) and answers the clarified question',
    async (answer) => {
      const asked = await clarified();
      const second = asked.candidates[1]!.intent;
      const body = await ok(picky, { message: answer, conversationId: asked.conversationId });
      expect(body).toMatchObject({ intent: second, needClarify: false, shouldTransfer: false, conversationId: asked.conversationId });
      const row = await trace(body.sessionId);
      expect(row.query).toBe(answer);
      expect(row.intent).toBe(second);
      expect(row.route_trace).toMatchObject({
        finalIntent: second,
        decisionReason: 'clarify_resolved',
        needClarify: false,
        chat: { branch: 'knowledge', language: 'zh', clarify: { stage: 'resolved', intent: second, by: 'number', question: QUESTION } },
      });
      // A bare number adds nothing: the knowledge base is asked the question that was clarified.
      expect(row.route_trace.chat.lookups.map((l) => l.query)).toEqual([QUESTION]);
      // A follow-up after it is about the clarified question, with the picked intent (docs/chat-clients.md "Conversations that remember").
      const still = await ok(picky, { message: '还是不行', conversationId: asked.conversationId });
      expect(still.intent).toBe(second);
      expect((await trace(still.sessionId)).route_trace.chat).toMatchObject({
        followUp: { message: '还是不行', query: `${QUESTION} 还是不行`, by: 'still_failing', carried: { intent: second }, repeat: false },
      });
    },
  );

  it('picks by label, keeping the answer with the question for the lookup', async () => {
    const asked = await clarified();
    const body = await ok(picky, { message: '固件升级', conversationId: asked.conversationId });
    expect(body).toMatchObject({ intent: 'firmware', needClarify: false, shouldTransfer: false });
    const row = await trace(body.sessionId);
    expect(row.route_trace).toMatchObject({ decisionReason: 'clarify_resolved', chat: { clarify: { stage: 'resolved', intent: 'firmware', by: 'label' } } });
    expect(row.route_trace.chat.lookups.map((l) => l.query)).toEqual([`${QUESTION}\n固件升级`]);
  });

  it('an answer that picks none hands off (the second failure), and the clarification is then spent', async () => {
    const asked = await clarified();
    const body = await ok(picky, { message: '今天天气怎么样', conversationId: asked.conversationId });
    expect(body).toMatchObject({ shouldTransfer: true, needClarify: false, references: [] });
    expect(body.reply).toMatch(/人工客服/);
    const row = await trace(body.sessionId);
    expect(row.route_trace.decisionReason).not.toBe('clarify_resolved');
    expect(row.route_trace.chat).toMatchObject({ branch: 'transfer', clarify: { stage: 'failed', question: QUESTION } });
    // The turn after the hand-off answers nothing: "1" is routed as a message of its own.
    const after = await ok(picky, { message: '1', conversationId: asked.conversationId });
    expect((await trace(after.sessionId)).route_trace.decisionReason).not.toBe('clarify_resolved');
  });

  it('a resolved clarification is spent: the next "1" is a message of its own', async () => {
    const asked = await clarified();
    await ok(picky, { message: '1', conversationId: asked.conversationId });
    const again = await ok(picky, { message: '1', conversationId: asked.conversationId });
    expect((await trace(again.sessionId)).route_trace.decisionReason).not.toBe('clarify_resolved');
  });

  it('another conversation, or another tenant, cannot resolve the candidates', async () => {
    const asked = await clarified();
    // The same tenant in a new conversation: "2" is routed on its own.
    const fresh = await ok(picky, { message: '2' });
    expect(fresh.conversationId).not.toBe(asked.conversationId);
    expect((await trace(fresh.sessionId)).route_trace.decisionReason).not.toBe('clarify_resolved');
    // Another tenant naming the conversation: 404, nothing written.
    const before = await sessions();
    const foreign = await chat(other, { message: '2', conversationId: asked.conversationId });
    expect(foreign.statusCode).toBe(404);
    expect(await sessions()).toBe(before);
    // The owner can still resolve it afterwards.
    const owner = await ok(picky, { message: '2', conversationId: asked.conversationId });
    expect((await trace(owner.sessionId)).route_trace.decisionReason).toBe('clarify_resolved');
  });

  it('resolves the same way when the answer is streamed', async () => {
    const asked = await clarified();
    const second = asked.candidates[1]!.intent;
    const stream = await postSse(port, '/ai/chat', { 'x-api-key': picky.clientKey }, { message: '第二个', conversationId: asked.conversationId, stream: true });
    const route = stream.frames.find((f) => f.event === 'route');
    expect(JSON.parse(route?.data ?? 'null')).toMatchObject({ intent: second, needClarify: false, decisionReason: 'clarify_resolved' });
    const done = JSON.parse(stream.frames.find((f) => f.event === 'done')?.data ?? 'null') as ChatBody;
    expect(done).toMatchObject({ intent: second, needClarify: false, shouldTransfer: false });
    expect((await trace(done.sessionId)).route_trace.chat.clarify).toMatchObject({ stage: 'resolved', by: 'number' });

    const again = await clarified();
    const failed = await postSse(
      port,
      '/ai/chat',
      { 'x-api-key': picky.clientKey },
      { message: 'what is the weather', conversationId: again.conversationId, stream: true },
    );
    const failedDone = JSON.parse(failed.frames.find((f) => f.event === 'done')?.data ?? 'null') as ChatBody;
    expect(failedDone).toMatchObject({ shouldTransfer: true, needClarify: false });
  });
});
