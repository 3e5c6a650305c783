import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { bestDeadline } from './deadline.js';
import { FakeOpenAiServer, fakeEmbedding } from './fake-openai-server.js';

const lookupTool = {
  type: 'function' as const,
  function: {
    name: 'knowledge_lookup',
    description: 'Search the knowledge base',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};

describe('FakeOpenAiServer with the real langchain clients', () => {
  const server = new FakeOpenAiServer({ embeddingDimension: 16 });
  let baseURL: string;
  const chat = (timeout = 5_000): ChatOpenAI => new ChatOpenAI({ model: 'fake-chat', apiKey: 'test-key', configuration: { baseURL }, maxRetries: 0, timeout });

  beforeAll(async () => {
    baseURL = await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.reset();
  });

  it('listens on 127.0.0.1 with a /v1 base URL', () => {
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('answers ChatOpenAI.invoke with scripted content and token usage, recording the request', async () => {
    server.replyWith('机械臂复位请按住急停三秒', { usage: { promptTokens: 11, completionTokens: 7 } });
    const reply = await chat().invoke([new HumanMessage('机械臂如何复位?')]);
    expect(reply.content).toBe('机械臂复位请按住急停三秒');
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    const [request] = server.chatRequests();
    expect(request.model).toBe('fake-chat');
    expect(request.messages?.[0]).toMatchObject({ role: 'user', content: '机械臂如何复位?' });
    expect(server.requests[0].headers.authorization).toBe('Bearer test-key');
  });

  it('round-trips a tool call through bindTools', async () => {
    server.enqueueChat(
      { kind: 'tool_calls', toolCalls: [{ name: 'knowledge_lookup', args: { query: 'E102 报警' }, id: 'call_1' }] },
      { kind: 'content', content: 'E102 表示伺服过热' },
    );
    const model = chat().bindTools([lookupTool]);
    const first = await model.invoke([new HumanMessage('E102 是什么?')]);
    expect(first.tool_calls).toEqual([expect.objectContaining({ name: 'knowledge_lookup', args: { query: 'E102 报警' }, id: 'call_1' })]);
    const second = await model.invoke([new HumanMessage('E102 是什么?'), first, new ToolMessage({ tool_call_id: 'call_1', content: '伺服过热' })]);
    expect(second.content).toBe('E102 表示伺服过热');
    const [firstRequest, secondRequest] = server.chatRequests();
    expect(firstRequest.tools?.[0].function.name).toBe('knowledge_lookup');
    expect(secondRequest.messages?.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(secondRequest.messages?.[2].tool_call_id).toBe('call_1');
  });

  it('reports unparsable tool-call arguments as invalid_tool_calls', async () => {
    server.enqueueChat({ kind: 'tool_calls', toolCalls: [{ name: 'knowledge_lookup', args: '{"query": ' }] });
    // langchain warns ("New LangChain packages are available…") when only invalid tool calls come back.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const reply = (await chat().bindTools([lookupTool]).invoke('x')) as AIMessage;
    expect(reply.tool_calls).toEqual([]);
    expect(reply.invalid_tool_calls?.[0]?.name).toBe('knowledge_lookup');
    warn.mockRestore();
  });

  it('streams content deltas and tool calls (SSE) to model.stream()', async () => {
    server.replyWith('streamed answer text', { usage: { promptTokens: 3, completionTokens: 4 } });
    const chunks: string[] = [];
    for await (const chunk of await chat().stream('hi')) chunks.push(String(chunk.content));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.join('')).toBe('streamed answer text');
    expect(server.chatRequests()[0].stream).toBe(true);

    server.enqueueChat({ kind: 'tool_calls', toolCalls: [{ name: 'knowledge_lookup', args: { query: 'E102' }, id: 'call_s' }] });
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await chat().bindTools([lookupTool]).stream('E102?')) merged = merged ? merged.concat(chunk) : chunk;
    expect(merged?.tool_calls).toEqual([expect.objectContaining({ name: 'knowledge_lookup', args: { query: 'E102' }, id: 'call_s' })]);
  });

  it('paces streamed pieces (pieceDelayMs) and records a client that hangs up mid-stream', async () => {
    server.enqueueChat({ kind: 'content', content: 'a'.repeat(80), pieceDelayMs: 30 });
    const complete: string[] = [];
    for await (const chunk of await chat().stream('hi')) complete.push(String(chunk.content));
    expect(complete.join('')).toBe('a'.repeat(80));
    expect(server.chatStreams()[0]).toEqual({ index: 0, piecesTotal: 10, piecesSent: 10, aborted: false });

    server.enqueueChat({ kind: 'content', content: 'b'.repeat(80), pieceDelayMs: 50 });
    const controller = new AbortController();
    let received = '';
    await expect(
      (async () => {
        for await (const chunk of await chat().stream('hi', { signal: controller.signal })) {
          received += String(chunk.content);
          if (received.length >= 16) controller.abort();
        }
      })(),
    ).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 120));
    const record = server.chatStreams()[1]!;
    expect(record.aborted).toBe(true);
    expect(record.piecesSent).toBeLessThan(record.piecesTotal);
  });

  it('honours the client timeout within a few ms of the deadline', async () => {
    server.setChatHandler(() => ({ kind: 'content', content: 'too late', delayMs: 2_000 }));
    const { elapsedMs, lateByMs, error } = await bestDeadline(150, () => chat(150).invoke('hi'));
    expect(error).toBeInstanceOf(Error);
    expect(elapsedMs).toBeGreaterThanOrEqual(145);
    expect(lateByMs).toBeLessThan(25);
  });

  it('honours an AbortSignal passed per call', async () => {
    server.setChatHandler(() => ({ kind: 'content', content: 'too late', delayMs: 2_000 }));
    const { lateByMs, error } = await bestDeadline(100, () => chat().invoke('hi', { signal: AbortSignal.timeout(100) }));
    expect(error).toBeInstanceOf(Error);
    expect(lateByMs).toBeLessThan(25);
  });

  it('makes a malformed body fail the call', async () => {
    server.enqueueChat({ kind: 'malformed' });
    await expect(chat().invoke('hi')).rejects.toThrow();
  });

  it('returns scripted HTTP errors with an OpenAI error body', async () => {
    server.enqueueChat({ kind: 'error', status: 503, message: 'overloaded' });
    await expect(chat().invoke('hi')).rejects.toThrow(/overloaded|503/);
  });

  it('answers from the handler when the queue is empty, and 500s when there is neither', async () => {
    server.setChatHandler((body, index) => ({ kind: 'content', content: `#${index} ${String(body.messages?.[0]?.content)}` }));
    await expect(chat().invoke('ping')).resolves.toMatchObject({ content: '#0 ping' });
    server.setChatHandler(undefined);
    await expect(chat().invoke('ping')).rejects.toThrow(/no scripted chat reply/);
  });

  it('serves deterministic unit embeddings as base64 (langchain default) and as floats', async () => {
    const embeddings = new OpenAIEmbeddings({ model: 'fake-embed', apiKey: 'k', configuration: { baseURL }, maxRetries: 0 });
    const [a, b] = await embeddings.embedDocuments(['机械臂', 'robot arm']);
    expect(a).toHaveLength(16);
    a.forEach((x, i) => expect(x).toBeCloseTo(fakeEmbedding('机械臂', 16)[i], 5));
    expect(Math.hypot(...b)).toBeCloseTo(1, 5);
    const floats = new OpenAIEmbeddings({ model: 'fake-embed', apiKey: 'k', configuration: { baseURL }, maxRetries: 0, encodingFormat: 'float' });
    const q = await floats.embedQuery('机械臂');
    expect(q).toEqual(fakeEmbedding('机械臂', 16));
    const formats = server.embeddingRequests().map((r) => r.encoding_format);
    expect(formats).toEqual(['base64', 'float']);
  });

  it('scripts embedding failures, honours requested dimensions and scale', async () => {
    const embeddings = new OpenAIEmbeddings({ model: 'e', apiKey: 'k', configuration: { baseURL }, maxRetries: 0, encodingFormat: 'float' });
    server.enqueueEmbedding({ kind: 'error', status: 500, message: 'boom' }, { kind: 'malformed' }, { kind: 'vectors', dimension: 4, scale: 3 });
    await expect(embeddings.embedQuery('x')).rejects.toThrow(/boom|500/);
    await expect(embeddings.embedQuery('x')).rejects.toThrow();
    const v = await embeddings.embedQuery('x');
    expect(v).toHaveLength(4);
    expect(Math.hypot(...v)).toBeCloseTo(3, 5);
    const sized = new OpenAIEmbeddings({ model: 'text-embedding-3-small', apiKey: 'k', configuration: { baseURL }, maxRetries: 0, dimensions: 8 });
    expect(await sized.embedQuery('x')).toHaveLength(8);
  });
});
