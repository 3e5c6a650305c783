import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { MetricsService } from '@arbiter/common';
import { AppConfig, validateEnvironment } from '@arbiter/config';
import { bestDeadline, FakeOpenAiServer } from '@arbiter/testing';
import { LlmErrorCode, LlmException } from './llm.exception.js';
import { LlmService, messageText } from './llm.service.js';

function config(env: Record<string, string>): AppConfig {
  return new AppConfig(validateEnvironment(env));
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LlmException);
    return (error as LlmException).code;
  }
  throw new Error('expected a rejection');
}

describe('LlmService', () => {
  const server = new FakeOpenAiServer();
  let baseUrl: string;
  let metrics: MetricsService;
  let service: LlmService;

  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.reset();
    metrics = new MetricsService();
    service = new LlmService(config({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_MODEL: 'qwen-test', LLM_TIMEOUT_MS: '1000' }), metrics);
  });

  it('is disabled with LLM_PROVIDER=none and refuses to build a model', async () => {
    const none = new LlmService(config({}));
    expect(none.enabled).toBe(false);
    expect(none.modelName).toBeNull();
    expect(() => none.chatModel()).toThrow(LlmException);
    expect(await codeOf(none.invoke('hi'))).toBe(LlmErrorCode.LLM_DISABLED);
  });

  it('builds a ChatOpenAI for the configured server with maxRetries 0 and the configured timeout', () => {
    expect(service.enabled).toBe(true);
    expect(service.modelName).toBe('qwen-test');
    const model = service.chatModel();
    expect(model.model).toBe('qwen-test');
    expect(model.timeout).toBe(1000);
    expect(service.chatModel()).toBe(model);
    expect(service.chatModel({ timeoutMs: 50 }).timeout).toBe(50);
  });

  it('returns the reply text, token usage and duration, and counts them in Prometheus', async () => {
    server.replyWith('{"confidence": 80, "reasoning": "ok"}', { usage: { promptTokens: 20, completionTokens: 9 } });
    const result = await service.invoke([new HumanMessage('evaluate this')], { purpose: 'self_evaluation' });
    expect(result.content).toBe('{"confidence": 80, "reasoning": "ok"}');
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 9, totalTokens: 29 });
    expect(result.model).toBe('qwen-test');
    expect(result.durationMs).toBeGreaterThan(0);
    expect(server.chatRequests()[0].model).toBe('qwen-test');
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/arbiter_llm_calls_total\{purpose="self_evaluation",outcome="ok"\} 1/);
    expect(text).toMatch(/arbiter_llm_tokens_total\{purpose="self_evaluation",kind="input"\} 20/);
  });

  it('maps a per-call timeout to LLM_TIMEOUT within a few ms of the deadline', async () => {
    server.setChatHandler(() => ({ kind: 'content', content: 'late', delayMs: 3_000 }));
    const { elapsedMs, lateByMs, error } = await bestDeadline(120, () => service.invoke('hi', { timeoutMs: 120, purpose: 'intent_judge' }));
    expect((error as LlmException).code).toBe(LlmErrorCode.LLM_TIMEOUT);
    expect(elapsedMs).toBeGreaterThanOrEqual(115);
    expect(lateByMs).toBeLessThan(25);
    expect(await metrics.registry.metrics()).toMatch(/arbiter_llm_calls_total\{purpose="intent_judge",outcome="timeout"\} \d+/);
  });

  it('maps the client-level LLM_TIMEOUT_MS to LLM_TIMEOUT', async () => {
    const fast = new LlmService(config({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_TIMEOUT_MS: '150' }));
    server.setChatHandler(() => ({ kind: 'content', content: 'late', delayMs: 3_000 }));
    const { lateByMs, error } = await bestDeadline(150, () => fast.invoke('hi'));
    expect((error as LlmException).code).toBe(LlmErrorCode.LLM_TIMEOUT);
    expect(lateByMs).toBeLessThan(25);
  });

  it("maps the caller's abort to LLM_ABORTED", async () => {
    server.replyWith('late', { delayMs: 3_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await codeOf(service.invoke('hi', { signal: controller.signal }))).toBe(LlmErrorCode.LLM_ABORTED);
    const aborted = AbortSignal.abort();
    expect(await codeOf(service.invoke('hi', { signal: aborted }))).toBe(LlmErrorCode.LLM_ABORTED);
  });

  it.each([
    ['a malformed body', { kind: 'malformed' as const }],
    ['an HTTP 500', { kind: 'error' as const, status: 500, message: 'upstream exploded' }],
    ['an HTTP 401', { kind: 'error' as const, status: 401, message: 'bad key' }],
  ])('maps %s to LLM_CALL_FAILED', async (_label, reply) => {
    server.enqueueChat(reply);
    expect(await codeOf(service.invoke('hi'))).toBe(LlmErrorCode.LLM_CALL_FAILED);
  });

  it('invokes a caller-supplied model (tools bound) and exposes the tool calls', async () => {
    server.enqueueChat({ kind: 'tool_calls', toolCalls: [{ name: 'lookup', args: { q: 'E102' } }] });
    const model = service
      .chatModel()
      .bindTools([{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }]);
    const result = await service.invoke('E102?', { model });
    expect(result.message.tool_calls?.[0]).toMatchObject({ name: 'lookup', args: { q: 'E102' } });
  });

  it('streams: onText hears each piece as it arrives, the result is the whole message with usage', async () => {
    // The fake holds its last piece until onText has heard the first: a buffering client would never hear it
    // (the fallback timer releases it after 5 s and the test fails), so no clock decides the outcome.
    let release!: () => void;
    const firstHeard = new Promise<void>((resolve) => (release = resolve));
    let releasedBy: 'onText' | 'timer' | null = null;
    const fallback = setTimeout(() => {
      releasedBy ??= 'timer';
      release();
    }, 5_000);
    server.enqueueChat({ kind: 'content', content: '先断电，再检查动力线绝缘。', holdLastPiece: firstHeard, usage: { promptTokens: 7, completionTokens: 5 } });
    const pieces: string[] = [];
    const result = await service.stream('E201?', {
      purpose: 'chat',
      onText: (text) => {
        pieces.push(text);
        if (releasedBy === null) {
          releasedBy = 'onText';
          release();
        }
      },
    });
    clearTimeout(fallback);
    expect(pieces.join('')).toBe('先断电，再检查动力线绝缘。');
    expect(pieces.length).toBeGreaterThan(1);
    expect(releasedBy).toBe('onText');
    expect(result.content).toBe('先断电，再检查动力线绝缘。');
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 5, totalTokens: 12 });
    expect(server.chatRequests()[0].stream).toBe(true);
    expect(await metrics.registry.metrics()).toMatch(/arbiter_llm_calls_total\{purpose="chat",outcome="ok"\} 1/);
  });

  it('streams tool calls merged into the message', async () => {
    server.enqueueChat({ kind: 'tool_calls', toolCalls: [{ name: 'lookup', args: { q: 'E102' } }] });
    const model = service
      .chatModel()
      .bindTools([{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }]);
    const result = await service.stream('E102?', { model, onText: () => undefined });
    expect(result.message.tool_calls?.[0]).toMatchObject({ name: 'lookup', args: { q: 'E102' } });
  });

  it("a caller's abort mid-stream → LLM_ABORTED, and the server stops sending", async () => {
    server.enqueueChat({ kind: 'content', content: 'x'.repeat(160), pieceDelayMs: 50 });
    const controller = new AbortController();
    let received = 0;
    const code = await codeOf(
      service.stream('hi', {
        signal: controller.signal,
        onText: (text) => {
          received += text.length;
          if (received >= 16) controller.abort();
        },
      }),
    );
    expect(code).toBe(LlmErrorCode.LLM_ABORTED);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(server.chatStreams()[0]).toMatchObject({ aborted: true });
    expect(server.chatStreams()[0]!.piecesSent).toBeLessThan(20);
  });

  it('a stream that times out → LLM_TIMEOUT', async () => {
    server.enqueueChat({ kind: 'content', content: 'y'.repeat(160), pieceDelayMs: 100 });
    expect(await codeOf(service.stream('hi', { timeoutMs: 250, onText: () => undefined }))).toBe(LlmErrorCode.LLM_TIMEOUT);
  });

  it('targets Ollama at its /v1 API', async () => {
    const ollama = new LlmService(config({ LLM_PROVIDER: 'ollama', LLM_BASE_URL: baseUrl.replace(/\/v1$/, ''), LLM_MODEL: 'qwen2.5' }));
    server.replyWith('你好');
    expect((await ollama.invoke('hi')).content).toBe('你好');
    expect(server.requests[0].path).toBe('/v1/chat/completions');
  });

  it('fails at construction when api.openai.com would be used without a key', () => {
    expect(() => new LlmService(config({ LLM_PROVIDER: 'openai' }))).toThrow(/LLM_API_KEY/);
  });

  it('joins text content blocks', () => {
    expect(messageText([{ type: 'text', text: 'a' }, { type: 'image_url' }, 'b'])).toBe('ab');
    expect(messageText(undefined)).toBe('');
  });
});
