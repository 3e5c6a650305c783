import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeOpenAiServer, type FakeChatReply, type FakeChatRequestBody } from '@arbiter/testing';
import { isBackgroundStatement, roundTripCounter } from '../support/round-trips.js';
import { postSse, type SseFrame, type SseResult } from '../support/sse-client.js';
import { seededChatTenant } from '../support/chat-tenant.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface ChatBody {
  sessionId: string;
  conversationId: string;
  reply: string;
  references: { filePath: string }[];
  [key: string]: unknown;
}

const named = (result: SseResult): SseFrame[] => result.frames.filter((f) => f.event !== undefined);
const dataOf = <T>(frame: SseFrame | undefined): T => JSON.parse(frame?.data ?? 'null') as T;

/** The named events in order, with the delta run collapsed: route → lookup → delta → done. */
function eventOrder(result: SseResult): string[] {
  const names = named(result).map((f) => f.event!);
  return names.filter((name, i) => !(name === 'delta' && names[i - 1] === 'delta'));
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.getHttpServer().address() as AddressInfo).port;
}

describe('POST /ai/chat as server-sent events, offline (e2e, real socket)', () => {
  let t: TestApp;
  let port: number;
  let acme: TestTenant;
  let globex: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await seededChatTenant(t, 'stream-acme');
    globex = await t.createTenant('stream-globex');
    port = await listen(t);
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  const sessionCount = async (tenantId: string) =>
    Number((await t.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM diagnosis_session WHERE tenant_id = $1', [tenantId])).rows[0]!.n);

  it('streams route → lookup → delta… → done; done is the non-streaming body, the deltas concatenate to its reply', async () => {
    const message = '机械臂报警 E201 怎么处理？';
    const stream = await postSse(
      port,
      '/ai/chat',
      { 'x-api-key': acme.clientKey, accept: 'text/event-stream', origin: 'https://widget.example', 'x-request-id': 'stream-req-1' },
      { message },
    );
    expect(stream.status).toBe(200);
    expect(stream.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': 'stream-req-1',
      'access-control-allow-origin': 'https://widget.example',
    });
    expect(eventOrder(stream)).toEqual(['route', 'lookup', 'delta', 'done']);
    for (const frame of named(stream)) expect(frame.data).not.toContain('\n');

    const route = dataOf<{ intent: string; confidence: number; needClarify: boolean }>(named(stream)[0]);
    expect(route).toMatchObject({ intent: 'fault', needClarify: false });
    const lookup = dataOf<{ query: string; relevanceLevel: string; references: { filePath: string }[] }>(named(stream)[1]);
    expect(lookup.query).toBe(message);
    expect(lookup.references.map((r) => r.filePath)).toContain('faults/e201-servo-overcurrent.md');

    const done = dataOf<ChatBody>(named(stream).at(-1));
    const deltas = named(stream).filter((f) => f.event === 'delta');
    expect(deltas.map((f) => dataOf<{ text: string }>(f).text).join('')).toBe(done.reply);
    expect(deltas.length).toBeGreaterThan(1);

    const plain = await t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': acme.clientKey }, payload: { message } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toContain('application/json');
    const body = plain.json<ChatBody>();
    expect(Object.keys(done).sort()).toEqual(Object.keys(body).sort());
    expect({ ...done, sessionId: '', conversationId: '' }).toEqual({ ...body, sessionId: '', conversationId: '' });

    const session = await t.request({ method: 'GET', url: `/api/sessions/${done.sessionId}`, headers: { 'x-api-key': acme.clientKey } });
    expect(session.json<{ status: string; answer: string }>()).toMatchObject({ status: 'SUCCESS', answer: done.reply });
  });

  it.each([
    ['a new conversation', false],
    ['a continued conversation', true],
  ])(
    'the reply goes out before the turn is written and done only after (%s): at most three statements before the first delta (docs/hot-paths.md "Chat turn")',
    async (_name, continued) => {
      const headers = { 'x-api-key': acme.clientKey, accept: 'text/event-stream' };
      // Warm: the key and the intent rules are cached after the first turn.
      const warm = dataOf<ChatBody>(named(await postSse(port, '/ai/chat', headers, { message: '机械臂报警 E201 怎么处理？' })).at(-1));
      const payload = continued ? { message: '那 E202 呢？', conversationId: warm.conversationId } : { message: 'E050 急停回路断开报警怎么办？' };
      const counter = roundTripCounter(t.app);
      // Each SSE event the server writes is marked among the statements, in order.
      const proto = ServerResponse.prototype as unknown as { write: (...args: unknown[]) => boolean };
      const hadOwn = Object.prototype.hasOwnProperty.call(proto, 'write');
      const write = proto.write;
      proto.write = function (this: unknown, ...args: unknown[]) {
        const event = typeof args[0] === 'string' ? /^event: (\w+)/.exec(args[0])?.[1] : undefined;
        if (event) counter.mark(`<sse ${event}>`);
        return write.apply(this, args);
      };
      try {
        const { result, trips } = await counter.measure(() => postSse(port, '/ai/chat', headers, payload));
        expect(result.status).toBe(200);
        const log = trips.statements.filter((sql) => !isBackgroundStatement(sql));
        const firstDelta = log.indexOf('<sse delta>');
        const finish = log.findIndex((sql) => /^WITH s AS \(UPDATE diagnosis_session SET hooks_done = true/.test(sql));
        const done = log.indexOf('<sse done>');
        expect(firstDelta).toBeGreaterThan(0);
        const before = log.slice(0, firstDelta).filter((sql) => !sql.startsWith('<sse'));
        // On failure the statements are listed.
        expect([before.length, before]).toEqual([Math.min(before.length, 3), before]);
        // The turn's records commit after the reply went out and before `done`: an acknowledged turn is durable.
        expect([firstDelta < finish, finish < done]).toEqual([true, true]);
        const body = dataOf<ChatBody>(named(result).at(-1));
        const row = await t.db.pool.query<{ status: string; hooks_done: boolean; answer: string }>(
          'SELECT status, hooks_done, answer FROM diagnosis_session WHERE id = $1',
          [body.sessionId],
        );
        expect(row.rows[0]).toEqual({ status: 'SUCCESS', hooks_done: true, answer: body.reply });
      } finally {
        if (hadOwn) proto.write = write;
        else delete (proto as { write?: unknown }).write;
        counter.restore();
      }
    },
  );

  it('"stream": true streams without the Accept header; "stream": false answers JSON despite it', async () => {
    const streamed = await postSse(port, '/ai/chat', { 'x-api-key': acme.clientKey }, { message: '你好', stream: true });
    expect(eventOrder(streamed)).toEqual(['route', 'delta', 'done']);
    expect(dataOf<ChatBody>(named(streamed).at(-1)).reply).toBe('您好！我是演示助手。有什么可以帮您？');

    const json = await postSse(port, '/ai/chat', { 'x-api-key': acme.clientKey, accept: 'text/event-stream' }, { message: '你好', stream: false });
    expect(json.headers['content-type']).toContain('application/json');
    expect(JSON.parse(json.body)).toMatchObject({ reply: '您好！我是演示助手。有什么可以帮您？' });
  });

  it.each([
    ['an empty message', { message: '   ' }, 'message'],
    ['stream not a boolean', { message: '你好', stream: 'yes' }, 'stream'],
    ['a malformed conversationId', { message: '你好', conversationId: 'nope' }, 'conversationId'],
  ])('%s → JSON 400 naming the field before any event, nothing written', async (_name, payload, field) => {
    const status = 400;
    const before = await sessionCount(acme.id);
    const res = await postSse(port, '/ai/chat', { 'x-api-key': acme.clientKey, accept: 'text/event-stream' }, payload);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.frames.filter((f) => f.event)).toEqual([]);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: status, details: { fields: [field] } });
    expect(await sessionCount(acme.id)).toBe(before);
  });

  it('a wrong key → JSON 401 before any event', async () => {
    const res = await postSse(port, '/ai/chat', { 'x-api-key': 'wrong-key', accept: 'text/event-stream' }, { message: '你好' });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 401 });
  });

  it("another tenant's conversationId → JSON 404 before any event, never its data", async () => {
    const first = await t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': acme.clientKey }, payload: { message: '你好' } });
    const conversationId = first.json<ChatBody>().conversationId;
    const before = await sessionCount(globex.id);
    const res = await postSse(port, '/ai/chat', { 'x-api-key': globex.clientKey, accept: 'text/event-stream' }, { message: '你好', conversationId });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404, code: 'CONVERSATION_NOT_FOUND' });
    expect(await sessionCount(globex.id)).toBe(before);
  });
});

const isAgentRequest = (body: FakeChatRequestBody) => (body.tools ?? []).some((t) => t.function.name === 'lookup_knowledge');

describe('POST /ai/chat as server-sent events with a model (e2e, fake OpenAI server)', () => {
  const fake = new FakeOpenAiServer();
  let script: FakeChatReply[] = [];
  let t: TestApp;
  let port: number;
  let acme: TestTenant;

  beforeAll(async () => {
    const url = await fake.start();
    t = await createTestApp({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'fake-model',
      LLM_TIMEOUT_MS: '10000',
      CHAT_TIMEOUT_MS: '20000',
      CHAT_STREAM_HEARTBEAT_MS: '100',
    });
    acme = await seededChatTenant(t, 'stream-llm-acme');
    port = await listen(t);
  }, 240_000);

  beforeEach(() => {
    fake.reset();
    script = [];
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

  const latestSession = async () =>
    (
      await t.db.pool.query<{ id: string; status: string; error: string | null }>(
        'SELECT id, status, error FROM diagnosis_session WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 1',
        [acme.id],
      )
    ).rows[0];

  /** The latest session once it has left RUNNING, polled for up to 3 s from `since`. */
  const sessionAfterHangUp = async (since: number) => {
    let session = await latestSession();
    while (session?.status === 'RUNNING' && performance.now() - since < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      session = await latestSession();
    }
    return session;
  };

  it("streams the agent's lookups, then its answer token by token as the model sends it; heartbeats while the model is slow", async () => {
    const answer = '先按急停并断电。再检查报警轴动力线绝缘（E201 伺服过流报警）。确认无短路后复位。';
    let release!: () => void;
    const firstHeard = new Promise<void>((resolve) => (release = resolve));
    let releasedBy: 'client' | 'timer' | null = null;
    const fallback = setTimeout(() => {
      releasedBy ??= 'timer';
      release();
    }, 8_000);
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201 伺服过流' } }], delayMs: 400 },
      // 8 characters a piece; the last one only after this client has heard the first as a delta (no clock
      // decides: a turn that buffered the answer would never send it, and the fallback timer fails the test).
      { kind: 'content', content: answer, holdLastPiece: firstHeard },
    ];
    const stream = await postSse(
      port,
      '/ai/chat',
      { 'x-api-key': acme.clientKey, accept: 'text/event-stream' },
      { message: '机械臂 E201 报警怎么办？' },
      (frame) => {
        if (frame.event === 'delta' && releasedBy === null && frame.data?.includes(answer.slice(0, 8))) {
          releasedBy = 'client';
          release();
        }
      },
    );
    clearTimeout(fallback);
    expect(eventOrder(stream)).toEqual(['route', 'lookup', 'delta', 'done']);
    const routeIndex = stream.frames.findIndex((f) => f.event === 'route');
    const lookupIndex = stream.frames.findIndex((f) => f.event === 'lookup');
    // The model waited 400 ms between the route and the lookup: heartbeats every 100 ms filled the wait.
    expect(stream.frames.slice(routeIndex, lookupIndex).filter((f) => f.comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
    const lookup = dataOf<{ query: string; references: { filePath: string; fileName: unknown; page: unknown; section: unknown }[] }>(
      stream.frames[lookupIndex],
    );
    expect(lookup.query).toBe('E201 伺服过流');
    expect(lookup.references[0]).toMatchObject({ filePath: expect.any(String), fileName: null, page: null, section: null });

    const done = dataOf<ChatBody>(named(stream).at(-1));
    const deltas = named(stream).filter((f) => f.event === 'delta');
    const texts = deltas.map((f) => dataOf<{ text: string; replace?: boolean }>(f));
    expect(texts.every((d) => d.replace === undefined)).toBe(true);
    expect(texts.map((d) => d.text).join('')).toBe(done.reply);
    // The model's pieces went out one by one as they came (not the reply cut afterwards): the answer's
    // first piece is the model's first 8 characters, and this client heard it before the model sent its last piece.
    expect(texts[0]!.text).toBe(answer.slice(0, 8));
    const answerDeltas = deltas.filter((f) => answer.includes(dataOf<{ text: string }>(f).text));
    expect(answerDeltas.length).toBeGreaterThanOrEqual(Math.ceil(answer.length / 8) - 1);
    expect(releasedBy).toBe('client');
    // The reply is the model's answer, then the sources the policy appends (the last delta).
    expect(done.reply.startsWith(answer)).toBe(true);
    expect(done.references.length).toBeGreaterThan(0);
    expect(
      fake
        .chatRequests()
        .filter(isAgentRequest)
        .every((body) => body.stream === true),
    ).toBe(true);
  });

  it('the model answer dropped by the policy (not found) is not streamed: the reply goes in pieces', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: '量子纠缠 火星 殖民 签证' } }] },
      { kind: 'content', content: '这是模型编造的答案，不应出现。' },
    ];
    const stream = await postSse(port, '/ai/chat', { 'x-api-key': acme.clientKey, accept: 'text/event-stream' }, { message: '火星殖民签证怎么办理？' });
    const done = dataOf<ChatBody>(named(stream).at(-1));
    expect(done.reply).not.toContain('模型编造');
    expect(stream.body).not.toContain('模型编造');
    const deltas = named(stream).filter((f) => f.event === 'delta');
    expect(deltas.map((f) => dataOf<{ text: string }>(f).text).join('')).toBe(done.reply);
  });

  it('a client that disconnects mid-answer aborts the streaming model call: the model server sees the hang-up, no further tokens', async () => {
    script = [
      { kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201 伺服过流' } }] },
      { kind: 'content', content: '先按急停并断电。'.repeat(40), pieceDelayMs: 100 },
    ];
    let deltas = 0;
    const stream = await postSse(
      port,
      '/ai/chat',
      { 'x-api-key': acme.clientKey, accept: 'text/event-stream' },
      { message: '机械臂 E201 报警怎么办？' },
      (frame) => {
        if (frame.event === 'delta') deltas++;
        return deltas >= 2 ? 'disconnect' : undefined;
      },
    );
    expect(stream.disconnected).toBe(true);
    const hungUp = performance.now();
    const session = await sessionAfterHangUp(hungUp);
    expect(session).toMatchObject({ status: 'FAILED', error: 'client_disconnected' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answerStream = fake.chatStreams().at(-1)!;
    // 40 pieces at 100 ms would take 4 s: the model server saw the connection close after a few.
    expect(answerStream).toMatchObject({ aborted: true });
    expect(answerStream.piecesSent).toBeLessThan(10);
    const sentAtHangUp = answerStream.piecesSent;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.chatStreams().at(-1)!.piecesSent).toBe(sentAtHangUp);
    // No further model call (no self-evaluation, no retry) after the hang-up.
    expect(fake.chatRequests()).toHaveLength(2);
  });

  it('a client that disconnects aborts the model call: the session closes FAILED client_disconnected, no further model call', async () => {
    script = [{ kind: 'tool_calls', toolCalls: [{ name: 'lookup_knowledge', args: { query: 'E201' } }], delayMs: 4000 }];
    let heartbeats = 0;
    const stream = await postSse(
      port,
      '/ai/chat',
      { 'x-api-key': acme.clientKey, accept: 'text/event-stream' },
      { message: '机械臂 E201 报警怎么办？' },
      (frame) => {
        if (frame.comment === 'heartbeat') heartbeats++;
        return heartbeats >= 2 ? 'disconnect' : undefined;
      },
    );
    const hungUp = performance.now();
    expect(stream.disconnected).toBe(true);
    expect(eventOrder(stream)).toEqual(['route']);
    const session = await sessionAfterHangUp(hungUp);
    // Well before the model's 4 s reply: the call was aborted, not waited out.
    expect(performance.now() - hungUp).toBeLessThan(3000);
    expect(session).toMatchObject({ status: 'FAILED', error: 'client_disconnected' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.chatRequests().filter(isAgentRequest)).toHaveLength(1);
    const invocations = await t.db.pool.query('SELECT id FROM tool_invocation WHERE session_id = $1', [session!.id]);
    expect(invocations.rows).toEqual([]);
  });
});
