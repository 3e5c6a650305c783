import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { FakeOpenAiServer, type FakeChatReply, type FakeChatRequestBody } from '@arbiter/testing';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const RULES = [
  {
    intent: 'fault',
    description: '故障报警排查',
    keywords: ['报警', 'alarm'],
    semanticExamples: ['机械臂报警了怎么办', 'the arm shows an alarm'],
    action: 'knowledge',
    priority: 10,
  },
  { intent: 'greeting', description: '打招呼', keywords: ['你好'], semanticExamples: ['你好'], action: 'answer', reply: '您好！' },
];

const E201 = 'faults/e201-servo-overcurrent.md';
const E202 = 'faults/e202-encoder-communication.md';

interface ChatBody {
  sessionId: string;
  conversationId: string;
  reply: string;
  confidence: number;
  shouldTransfer: boolean;
  references: { filePath: string; title: string; similarity: number; relevanceLevel: string }[];
}

interface ChatTrace {
  mode: string;
  events: string[];
  policy?: { action: string };
  confidence: { source: string; score: number };
  lookups: { query: string; relevanceLevel: string }[];
  agent?: {
    ok: boolean;
    stepCount: number;
    toolCallCount: number;
    steps: { step: number; toolCalls: { name: string; ok: boolean }[]; final: boolean }[];
    errorCode?: string;
    totalTokens: number;
  };
  fallback?: { reason: string; error?: string };
  followUp?: { message: string; query: string; search: string; by: string; rule?: string; repeat: boolean; llmError?: string; historyTurns: number };
}

const isAgentRequest = (body: FakeChatRequestBody) => (body.tools ?? []).some((t) => t.function.name === 'lookup_knowledge');
/** The condensing call of a follow-up (docs/chat-clients.md "Conversations"). */
const isCondenseRequest = (body: FakeChatRequestBody) => String(body.messages?.[0]?.content ?? '').includes('standalone question for a knowledge-base search');

describe('POST /ai/chat with an LLM agent (e2e, fake OpenAI server)', () => {
  const fake = new FakeOpenAiServer();
  let script: FakeChatReply[] = [];
  let t: TestApp;
  let acme: TestTenant;

  const chat = async (payload: Record<string, unknown>): Promise<ChatBody> => {
    const res = await t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': acme.clientKey }, payload });
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return res.json<ChatBody>();
  };
  const session = async (id: string) =>
    (
      await t.db.pool.query<{ status: string; step_count: number; tool_call_count: number; knowledge_searched: boolean; route_trace: { chat: ChatTrace } }>(
        'SELECT status, step_count, tool_call_count, knowledge_searched, route_trace FROM diagnosis_session WHERE id = $1',
        [id],
      )
    ).rows[0]!;
  const invocations = async (id: string) =>
    (
      await t.db.pool.query<{ tool_name: string; status: string; arguments: { query: string }; relevance_level: string }>(
        'SELECT tool_name, status, arguments, relevance_level FROM tool_invocation WHERE session_id = $1 ORDER BY created_at',
        [id],
      )
    ).rows;
  const agentRequests = () => fake.chatRequests().filter(isAgentRequest);

  beforeAll(async () => {
    const url = await fake.start();
    t = await createTestApp({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'fake-model',
      LLM_TIMEOUT_MS: '1500',
      CHAT_MAX_STEPS: '4',
    });
    acme = await t.createTenant('chat-llm-acme');
    for (const rule of RULES) {
      const res = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: { 'x-api-key': acme.operatorKey }, payload: rule });
      expect(res.statusCode).toBe(201);
    }
    const cfg = await t.request({
      method: 'PUT',
      url: '/admin/intent-config',
      headers: { 'x-api-key': acme.operatorKey },
      payload: { llmJudgeEnabled: false },
    });
    expect(cfg.statusCode).toBe(200);
    const bulk = await t.request({
      method: 'POST',
      url: '/admin/knowledge/documents/bulk',
      headers: { 'x-api-key': acme.operatorKey },
      payload: DEMO_KNOWLEDGE as unknown as Record<string, unknown>[],
    });
    expect(bulk.statusCode).toBe(200);
  }, 240_000);

  beforeEach(() => {
    fake.reset();
    script = [];
    // The agent's calls follow the script; anything else (e.g. a self-evaluation) gets a valid JSON verdict.
    fake.setChatHandler((body) =>
      isAgentRequest(body)
        ? (script.shift() ?? { kind: 'content', content: 'unscripted' })
        : { kind: 'content', content: '{"confidence": 80, "reasoning": "grounded"}' },
    );
  });

  afterAll(async () => {
    await t?.close();
    await fake.stop();
  });

  it('runs the tool-calling agent: two lookups, every call a tool_invocation, a cited answer', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201 伺服过流' } }] },
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E202 编码器通信异常' } }] },
      { kind: 'content', content: '先按急停并断电，检查报警轴动力线绝缘（E201）；再插紧编码器接头、检查拖链内电缆（E202）。' },
    ];
    const body = await chat({ message: '机械臂 E201 和 E202 同时报警怎么办？' });
    expect(body.reply).toContain('先按急停并断电');
    expect(body.reply).toMatch(/参考资料：\n\[1\] .+\n\[2\] /);
    expect(body.references.map((r) => r.filePath).sort()).toEqual([E201, E202]);
    expect(body.references.every((r) => r.relevanceLevel === 'PRECISE')).toBe(true);
    expect(body.shouldTransfer).toBe(false);

    const row = await session(body.sessionId);
    expect(row).toMatchObject({ status: 'SUCCESS', step_count: 3, tool_call_count: 2, knowledge_searched: true });
    const chatTrace = row.route_trace.chat;
    expect(chatTrace).toMatchObject({ mode: 'llm', confidence: { source: 'retrieval' }, agent: { ok: true, stepCount: 3, toolCallCount: 2 } });
    expect(chatTrace.agent!.steps.map((s) => [s.step, s.toolCalls.length, s.final])).toEqual([
      [1, 1, false],
      [2, 1, false],
      [3, 0, true],
    ]);
    expect(chatTrace.agent!.totalTokens).toBeGreaterThan(0);
    expect(chatTrace.events).toHaveLength(1);
    expect(chatTrace.events[0]).toMatch(/-confidence$/);
    expect(body.confidence).toBeCloseTo(chatTrace.confidence.score, 6);
    expect(chatTrace.lookups.map((l) => l.query)).toEqual(['E201 伺服过流', 'E202 编码器通信异常']);

    const inv = await invocations(body.sessionId);
    expect(inv.map((i) => [i.tool_name, i.status, i.arguments.query, i.relevance_level])).toEqual([
      ['lookup_knowledge', 'SUCCESS', 'E201 伺服过流', 'PRECISE'],
      ['lookup_knowledge', 'SUCCESS', 'E202 编码器通信异常', 'PRECISE'],
    ]);

    // What the model saw: the executor prompt, the tool, then each tool result with its quality signals.
    const reqs = agentRequests();
    expect(reqs).toHaveLength(3);
    const system = reqs[0]!.messages![0]!;
    expect(system.role).toBe('system');
    expect(String(system.content)).toContain('检索约束');
    expect(reqs[0]!.messages![1]).toMatchObject({ role: 'user', content: '机械臂 E201 和 E202 同时报警怎么办？' });
    const toolMessages = reqs[2]!.messages!.filter((m) => m.role === 'tool');
    expect(toolMessages).toHaveLength(2);
    expect(JSON.parse(String(toolMessages[0]!.content))).toMatchObject({
      relevanceLevel: 'PRECISE',
      results: expect.arrayContaining([expect.objectContaining({ filePath: E201 })]),
    });
    expect(reqs[0]!.tool_choice).not.toBe('none');

    const view = await t.request({ method: 'GET', url: `/api/sessions/${body.sessionId}`, headers: { 'x-api-key': acme.clientKey } });
    expect(view.json()).toMatchObject({
      status: 'SUCCESS',
      stepCount: 3,
      toolCallCount: 2,
      knowledgeSearched: true,
      coverage: { verdict: 'covered', reasonCode: 'covered_has_references' },
    });
  });

  it('stops at CHAT_MAX_STEPS: the last step may not call tools', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201' } }] },
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E202' } }] },
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E105 过热' } }] },
      { kind: 'content', content: '请依次检查 E201、E202、E105 的处理步骤。' },
    ];
    const body = await chat({ message: 'E201 E202 E105 都报警了' });
    const reqs = agentRequests();
    expect(reqs).toHaveLength(4);
    expect(reqs[3]!.tool_choice).toBe('none');
    const row = await session(body.sessionId);
    expect(row).toMatchObject({ step_count: 4, tool_call_count: 3 });
    expect(await invocations(body.sessionId)).toHaveLength(3);
    expect(body.reply).toContain('请依次检查');
  });

  it('falls back to the offline answer when the LLM times out (fallback-triggered in the trace)', async () => {
    script = [{ kind: 'content', content: 'too late', delayMs: 5000 }];
    const started = Date.now();
    const body = await chat({ message: 'E201 报警怎么处理' });
    expect(Date.now() - started).toBeLessThan(4500);
    expect(body.reply).not.toContain('too late');
    expect(body.reply).toMatch(/根据知识库资料：/);
    expect(body.references[0]).toMatchObject({ filePath: E201 });
    const row = await session(body.sessionId);
    expect(row.status).toBe('SUCCESS');
    expect(row.route_trace.chat.events[0]).toBe('fallback-triggered');
    expect(row.route_trace.chat.events[1]).toMatch(/-confidence$/);
    expect(row.route_trace.chat.fallback).toMatchObject({ reason: 'LLM_TIMEOUT' });
    expect(row.route_trace.chat.agent).toMatchObject({ ok: false, stepCount: 1, errorCode: 'LLM_TIMEOUT' });
    expect(row).toMatchObject({ step_count: 2, tool_call_count: 1 });
    expect(await invocations(body.sessionId)).toHaveLength(1);
  });

  it('falls back on an LLM error after a lookup, reusing what was found instead of searching again', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E202 编码器' } }] },
      { kind: 'error', status: 500, message: 'upstream exploded' },
    ];
    const body = await chat({ message: 'E202 报警了' });
    expect(body.references[0]).toMatchObject({ filePath: E202 });
    const row = await session(body.sessionId);
    expect(row.route_trace.chat.events[0]).toBe('fallback-triggered');
    expect(row.route_trace.chat.fallback!.reason).toBe('LLM_CALL_FAILED');
    expect(row).toMatchObject({ status: 'SUCCESS', step_count: 2, tool_call_count: 1 });
    expect(await invocations(body.sessionId)).toHaveLength(1);
  });

  it('records a tool call with invalid arguments as a FAILED tool_invocation and tells the model', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: '' } }] },
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201' } }] },
      { kind: 'content', content: 'E201：检查动力线绝缘。' },
    ];
    const body = await chat({ message: 'E201 报警' });
    const inv = await invocations(body.sessionId);
    expect(inv.map((i) => i.status)).toEqual(['FAILED', 'SUCCESS']);
    const toolMessage = agentRequests()[1]!.messages!.find((m) => m.role === 'tool');
    expect(String(toolMessage!.content)).toMatch(/invalid arguments/);
    expect((await session(body.sessionId)).tool_call_count).toBe(2);
  });

  it('takes the legitimate exit over the model answer when the knowledge base has nothing', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: '厨房烟雾报警器' } }] },
      { kind: 'content', content: '烟雾报警器请更换电池。' },
    ];
    const body = await chat({ message: '家里厨房的烟雾报警器一直响' });
    expect(body.reply).toMatch(/未找到.*建议您联系/s);
    expect(body.shouldTransfer).toBe(true);
    expect(body.references).toEqual([]);
    const row = await session(body.sessionId);
    expect(row.route_trace.chat.policy).toMatchObject({ action: 'legitimate_exit' });
    expect(row.route_trace.chat.agent).toMatchObject({ answerOverridden: true });
  });

  describe('conversations that remember', () => {
    const condensed = 'E202 编码器通信异常，插紧编码器接头后还是报警怎么办？';
    /** The agent follows the script; the condensing call gets `condense` (none expected without it). */
    const handle = (condense?: FakeChatReply) => {
      fake.reset();
      fake.setChatHandler((body) =>
        isCondenseRequest(body)
          ? (condense ?? { kind: 'error', status: 500, message: 'unexpected condensing call' })
          : isAgentRequest(body)
            ? (script.shift() ?? { kind: 'content', content: 'unscripted' })
            : { kind: 'content', content: '{"confidence": 80, "reasoning": "grounded"}' },
      );
    };
    const firstTurn = async () => {
      handle();
      script = [
        { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E202 编码器通信异常' } }] },
        { kind: 'content', content: '先插紧编码器接头，再检查拖链内电缆。' },
      ];
      const first = await chat({ message: '机械臂报警 E202 怎么处理？' });
      expect(first.references.map((r) => r.filePath)).toContain(E202);
      // A first message has nothing to resolve: no condensing call.
      expect(fake.chatRequests().filter(isCondenseRequest)).toHaveLength(0);
      return first;
    };
    const followUpScript: FakeChatReply[] = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E202 编码器 还是报警' } }] },
      { kind: 'content', content: '请更换编码器电缆。' },
    ];

    it('the model sees the earlier turns; one condensing call resolves the follow-up, answered from the earlier document again', async () => {
      const first = await firstTurn();
      handle({ kind: 'content', content: ` "${condensed}" ` });
      script = [...followUpScript];
      const second = await chat({ message: '还是不行', conversationId: first.conversationId });
      // Not "already provided": a new question about the conversation's document quotes it again.
      expect(second.references.map((r) => r.filePath)).toContain(E202);
      expect(second.reply).toContain('请更换编码器电缆。');
      const row = await session(second.sessionId);
      expect(row.route_trace.chat.followUp).toMatchObject({
        message: '还是不行',
        query: condensed,
        search: condensed,
        by: 'llm',
        rule: 'still_failing',
        repeat: false,
        historyTurns: 1,
      });
      // The condensing call saw the conversation and the follow-up.
      const condense = fake.chatRequests().filter(isCondenseRequest);
      expect(condense).toHaveLength(1);
      expect(String(condense[0]!.messages![1]!.content)).toBe(
        `Conversation:\nUser: 机械臂报警 E202 怎么处理？\nAssistant: ${first.reply}\n\nLast message: 还是不行\n\nStandalone question:`,
      );
      // The agent saw the earlier turn as history, then the message with its standalone question.
      const agent = agentRequests()[0]!;
      expect(agent.messages!.slice(1).map((m) => [m.role, m.content])).toEqual([
        ['user', '机械臂报警 E202 怎么处理？'],
        ['assistant', first.reply],
        ['user', `还是不行\n\n(Standalone question: ${condensed})`],
      ]);
    });

    it('a condensing call that hangs falls back to the rules within the turn', async () => {
      const first = await firstTurn();
      // The condensing call never answers (the server holds it until the client hangs up).
      handle({ kind: 'content', content: 'never sent', delayMs: 600_000 });
      script = [...followUpScript];
      const second = await chat({ message: '还是不行', conversationId: first.conversationId });
      expect(second.references.map((r) => r.filePath)).toContain(E202);
      const row = await session(second.sessionId);
      expect(row.status).toBe('SUCCESS');
      expect(row.route_trace.chat.followUp).toMatchObject({
        message: '还是不行',
        query: '机械臂报警 E202 怎么处理？ 还是不行',
        by: 'still_failing',
        repeat: false,
        llmError: expect.stringMatching(/time/i),
      });
      expect(row.route_trace.chat.followUp).not.toHaveProperty('rule');
      expect(fake.chatRequests().filter(isCondenseRequest)).toHaveLength(1);
      const agent = agentRequests()[0]!;
      expect(agent.messages!.at(-1)).toMatchObject({ role: 'user', content: '还是不行\n\n(Standalone question: 机械臂报警 E202 怎么处理？ 还是不行)' });
    });

    it('a condensing call that fails or answers no question falls back to the rules', async () => {
      for (const reply of [
        { kind: 'error', status: 500, message: 'condense exploded' } as const,
        { kind: 'content', content: '{"question": null}' } as const,
      ]) {
        const first = await firstTurn();
        handle(reply);
        script = [...followUpScript];
        const second = await chat({ message: '那 E201 呢？', conversationId: first.conversationId });
        const row = await session(second.sessionId);
        expect(row.route_trace.chat.followUp).toMatchObject({ query: '机械臂报警 E201 怎么处理？', by: 'code_swap', llmError: expect.any(String) });
      }
    });
  });

  it('does not call the LLM for rule answers', async () => {
    const body = await chat({ message: '你好' });
    expect(body.reply).toBe('您好！');
    expect(agentRequests()).toHaveLength(0);
  });
});
