import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { FakeOpenAiServer, type FakeChatRequestBody } from '@arbiter/testing';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const CHAT_TIMEOUT_MS = 4000;
const SLOW_MS = 2500;
const isAgentRequest = (body: FakeChatRequestBody) => (body.tools ?? []).some((t) => t.function.name === 'lookup_knowledge');

/**
 * Issue 11: LLM_TIMEOUT_MS bounds one model call, not the turn — an LLM answering every call in 2.5 s
 * under LLM_TIMEOUT_MS=3000 made a 4-step turn take 10 s. CHAT_TIMEOUT_MS is one deadline per turn.
 */
describe('faults: one deadline per chat turn (e2e, slow fake OpenAI server)', () => {
  const fake = new FakeOpenAiServer();
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    const url = await fake.start();
    t = await createTestApp({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'fake-model',
      LLM_TIMEOUT_MS: '3000',
      CHAT_MAX_STEPS: '4',
      CHAT_TIMEOUT_MS: String(CHAT_TIMEOUT_MS),
    });
    tenant = await t.createTenant();
    const op = { 'x-api-key': tenant.operatorKey };
    const rule = {
      intent: 'fault',
      description: '故障报警排查',
      keywords: ['报警', 'alarm'],
      semanticExamples: ['机械臂报警了怎么办'],
      action: 'knowledge',
      priority: 10,
    };
    expect((await t.request({ method: 'POST', url: '/admin/intent-rules', headers: op, payload: rule })).statusCode).toBe(201);
    expect((await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op, payload: { llmJudgeEnabled: false } })).statusCode).toBe(200);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/admin/knowledge/documents/bulk',
          headers: op,
          payload: DEMO_KNOWLEDGE as unknown as Record<string, unknown>[],
        })
      ).statusCode,
    ).toBe(200);
    // Every agent call takes 2.5 s (under LLM_TIMEOUT_MS) and asks for one more lookup.
    fake.setChatHandler((body) =>
      isAgentRequest(body)
        ? { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201 伺服过流' } }], delayMs: SLOW_MS }
        : { kind: 'content', content: '{"confidence": 80, "reasoning": "ok"}' },
    );
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    await fake.stop();
  });

  it('a turn whose model calls would take 10 s ends within CHAT_TIMEOUT_MS with the offline answer and a fallback-triggered event', async () => {
    const started = Date.now();
    const res = await t.request({
      method: 'POST',
      url: '/ai/chat',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { message: '机械臂报警 E201 怎么处理？' },
    });
    const elapsed = Date.now() - started;
    expect(res.statusCode).toBe(200);
    expect(elapsed).toBeLessThan(CHAT_TIMEOUT_MS + 1500);
    const body = res.json<{ sessionId: string; reply: string; references: { filePath: string }[] }>();
    expect(body.references.map((r) => r.filePath)).toContain('faults/e201-servo-overcurrent.md');

    const { rows } = await t.db.pool.query<{
      status: string;
      route_trace: { chat: { events: string[]; fallback?: { reason: string }; agent?: { ok: boolean; stepCount: number } } };
    }>('SELECT status, route_trace FROM diagnosis_session WHERE id = $1', [body.sessionId]);
    const chat = rows[0]!.route_trace.chat;
    expect(rows[0]!.status).toBe('SUCCESS');
    expect(chat.events).toContain('fallback-triggered');
    expect(chat.fallback?.reason).toBe('CHAT_DEADLINE');
    expect(chat.agent).toMatchObject({ ok: false, stepCount: 2 });
    // The agent made two model calls; the second was cut by the deadline, none started after it.
    expect(fake.chatRequests().filter(isAgentRequest)).toHaveLength(2);
  });
});
