import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { prng } from './prng.js';

/** Token counts the fake reports in `usage` (missing fields are estimated from the text). */
export interface FakeUsage {
  promptTokens?: number;
  completionTokens?: number;
}

interface ReplyTiming {
  /** Wait this long before answering (the client's timeout/abort can fire meanwhile). */
  delayMs?: number;
  /** Streamed replies: wait this long before each content piece after the first (a slow model; the client may hang up meanwhile). */
  pieceDelayMs?: number;
  /** Streamed replies: send the last content piece only once this settles (a test proves the client saw the first pieces before it). */
  holdLastPiece?: Promise<unknown>;
}

/** One streamed chat reply as the fake sent it: how many content pieces went out, and whether the client hung up first. */
export interface FakeStreamRecord {
  /** The chat call's index (0-based, as the handler sees it). */
  index: number;
  piecesTotal: number;
  piecesSent: number;
  /** The client closed the connection before the stream ended. */
  aborted: boolean;
}

export interface FakeToolCall {
  name: string;
  /** Serialized with JSON.stringify unless it is already a string (use a string to send broken JSON). */
  args: unknown;
  id?: string;
}

/** One scripted answer to `POST /v1/chat/completions`. */
export type FakeChatReply =
  | ({ kind: 'content'; content: string; usage?: FakeUsage; finishReason?: string } & ReplyTiming)
  | ({ kind: 'tool_calls'; toolCalls: FakeToolCall[]; content?: string; usage?: FakeUsage } & ReplyTiming)
  /** HTTP 200 whose body is not valid JSON (default: a truncated JSON object). */
  | ({ kind: 'malformed'; body?: string } & ReplyTiming)
  /** An OpenAI-style error body with the given HTTP status. */
  | ({ kind: 'error'; status: number; message?: string } & ReplyTiming);

export type FakeChatHandler = (request: FakeChatRequestBody, index: number) => FakeChatReply | Promise<FakeChatReply>;

/** One scripted answer to `POST /v1/embeddings` (default: deterministic unit vectors). */
export type FakeEmbeddingReply =
  | ({ kind: 'vectors'; dimension?: number; scale?: number } & ReplyTiming)
  | ({ kind: 'malformed'; body?: string } & ReplyTiming)
  | ({ kind: 'error'; status: number; message?: string } & ReplyTiming);

export interface FakeChatRequestBody {
  model?: string;
  messages?: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: unknown;
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  rawBody: string;
  receivedAt: number;
}

export interface FakeOpenAiServerOptions {
  /** Dimension of `/v1/embeddings` vectors unless the request asks for `dimensions` (default 384). */
  embeddingDimension?: number;
  /** Multiply every embedding by this factor (default 1 → unit vectors); != 1 tests client-side normalization. */
  embeddingScale?: number;
  /** Answer when the chat queue is empty and no handler is set (default: HTTP 500 naming the problem). */
  defaultChatReply?: FakeChatReply;
  /** Model name echoed in responses when the request names none. */
  model?: string;
}

/** FNV-1a + murmur finalizer; stable across runs and platforms. */
function hash32(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The deterministic unit vector the fake returns for `text` (exported so tests can predict it). */
export function fakeEmbedding(text: string, dimension: number): number[] {
  const next = prng(hash32(text, dimension));
  const v = Array.from({ length: dimension }, () => next() * 2 - 1);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A local OpenAI-compatible HTTP server for tests: `POST /v1/chat/completions` answers from a queue
 * of scripted replies (or a handler), `POST /v1/embeddings` returns deterministic vectors, and every
 * request is recorded. Drive the real langchain clients at `await server.start()`.
 */
export class FakeOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly chatQueue: FakeChatReply[] = [];
  private readonly embeddingQueue: FakeEmbeddingReply[] = [];
  private chatHandler?: FakeChatHandler;
  private chatCount = 0;
  private readonly streams: FakeStreamRecord[] = [];
  private server?: Server;
  private url?: string;
  private embeddingDimension: number;
  private embeddingScale: number;
  private readonly defaultChatReply?: FakeChatReply;
  private readonly model: string;

  constructor(options: FakeOpenAiServerOptions = {}) {
    this.embeddingDimension = options.embeddingDimension ?? 384;
    this.embeddingScale = options.embeddingScale ?? 1;
    this.defaultChatReply = options.defaultChatReply;
    this.model = options.model ?? 'fake-model';
  }

  /** Starts on 127.0.0.1 and a free port; resolves to the base URL (`http://127.0.0.1:PORT/v1`). */
  async start(): Promise<string> {
    if (this.url) return this.url;
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  /** Closes the server and drops open connections (pending delayed replies are abandoned). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.url = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get baseUrl(): string {
    if (!this.url) throw new Error('FakeOpenAiServer is not started');
    return this.url;
  }

  /** Queues chat replies, consumed one per request in order (before the handler/default). */
  enqueueChat(...replies: FakeChatReply[]): this {
    this.chatQueue.push(...replies);
    return this;
  }

  /** Shorthand for `enqueueChat({kind: 'content', content})`. */
  replyWith(content: string, options: { delayMs?: number; usage?: FakeUsage } = {}): this {
    return this.enqueueChat({ kind: 'content', content, ...options });
  }

  /** Answers chat requests when the queue is empty (the handler sees the parsed body and the call index). */
  setChatHandler(handler: FakeChatHandler | undefined): this {
    this.chatHandler = handler;
    return this;
  }

  /** Queues embedding replies (errors, malformed bodies, delays); when empty, vectors are returned. */
  enqueueEmbedding(...replies: FakeEmbeddingReply[]): this {
    this.embeddingQueue.push(...replies);
    return this;
  }

  setEmbeddingDimension(dimension: number, scale = this.embeddingScale): this {
    this.embeddingDimension = dimension;
    this.embeddingScale = scale;
    return this;
  }

  /** Bodies of the chat requests received so far. */
  chatRequests(): FakeChatRequestBody[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body as FakeChatRequestBody);
  }

  /** The streamed chat replies so far (pieces sent, whether the client aborted), in the order they started. */
  chatStreams(): readonly FakeStreamRecord[] {
    return this.streams;
  }

  /** Bodies of the embedding requests received so far. */
  embeddingRequests(): { input: string | string[]; model?: string; encoding_format?: string; dimensions?: number }[] {
    return this.requests.filter((r) => r.path.endsWith('/embeddings')).map((r) => r.body as { input: string | string[] });
  }

  /** Clears recorded requests, queues and the handler. */
  reset(): this {
    this.requests.length = 0;
    this.chatQueue.length = 0;
    this.embeddingQueue.length = 0;
    this.chatHandler = undefined;
    this.chatCount = 0;
    this.streams.length = 0;
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '/').split('?')[0];
      this.requests.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body, rawBody, receivedAt: Date.now() });

      if (req.method === 'POST' && path.endsWith('/chat/completions')) {
        if (!body || typeof body !== 'object') return this.sendError(res, 400, 'request body must be a JSON object');
        return await this.handleChat(body as FakeChatRequestBody, res, aborted.signal);
      }
      if (req.method === 'POST' && path.endsWith('/embeddings')) {
        if (!body || typeof body !== 'object') return this.sendError(res, 400, 'request body must be a JSON object');
        return await this.handleEmbeddings(body as Record<string, unknown>, res, aborted.signal);
      }
      if (req.method === 'GET' && path.endsWith('/models')) {
        return this.sendJson(res, 200, { object: 'list', data: [{ id: this.model, object: 'model', owned_by: 'fake' }] });
      }
      this.sendError(res, 404, `no route ${req.method} ${path}`);
    } catch (error) {
      if (!res.headersSent) this.sendError(res, 500, `fake server error: ${(error as Error).message}`);
    }
  }

  private async nextChatReply(body: FakeChatRequestBody, index: number): Promise<FakeChatReply> {
    const queued = this.chatQueue.shift();
    if (queued) return queued;
    if (this.chatHandler) return this.chatHandler(body, index);
    return this.defaultChatReply ?? { kind: 'error', status: 500, message: 'FakeOpenAiServer: no scripted chat reply (enqueueChat or setChatHandler)' };
  }

  private async handleChat(body: FakeChatRequestBody, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const index = this.chatCount++;
    const reply = await this.nextChatReply(body, index);
    if (reply.delayMs && !(await sleep(reply.delayMs, signal))) return;
    const model = typeof body.model === 'string' ? body.model : this.model;
    switch (reply.kind) {
      case 'error':
        return this.sendError(res, reply.status, reply.message ?? `scripted error ${reply.status}`);
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(reply.body ?? '{"id":"chatcmpl-broken","choices":[{"message":');
        return;
      case 'content':
      case 'tool_calls': {
        const content = reply.kind === 'content' ? reply.content : (reply.content ?? '');
        const toolCalls =
          reply.kind === 'tool_calls'
            ? reply.toolCalls.map((call, i) => ({
                id: call.id ?? `call_${index}_${i}`,
                type: 'function' as const,
                function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
              }))
            : undefined;
        const promptText = JSON.stringify(body.messages ?? []);
        const completionText = content + (toolCalls ? JSON.stringify(toolCalls) : '');
        const promptTokens = reply.usage?.promptTokens ?? estimateTokens(promptText);
        const completionTokens = reply.usage?.completionTokens ?? estimateTokens(completionText);
        const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
        const finishReason = toolCalls ? 'tool_calls' : reply.kind === 'content' && reply.finishReason ? reply.finishReason : 'stop';
        const id = `chatcmpl-fake-${index}`;
        const created = Math.floor(Date.now() / 1000);
        if (body.stream) {
          return this.streamChat(
            res,
            { id, created, model, content, toolCalls, finishReason, usage: body.stream_options?.include_usage ? usage : undefined },
            { index, pieceDelayMs: reply.pieceDelayMs ?? 0, holdLastPiece: reply.holdLastPiece, signal },
          );
        }
        return this.sendJson(res, 200, {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: toolCalls && !content ? null : content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
              finish_reason: finishReason,
              logprobs: null,
            },
          ],
          usage,
        });
      }
    }
  }

  private async streamChat(
    res: ServerResponse,
    r: {
      id: string;
      created: number;
      model: string;
      content: string;
      toolCalls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
      finishReason: string;
      usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    },
    pacing: { index: number; pieceDelayMs: number; holdLastPiece?: Promise<unknown>; signal: AbortSignal },
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const base = { id: r.id, object: 'chat.completion.chunk', created: r.created, model: r.model };
    const send = (payload: unknown): void => {
      res.write(`data: ${JSON.stringify(payload)}\n\n`);
    };
    send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    // Content in a few pieces so streaming consumers see several deltas.
    const pieces = r.content.match(/[\s\S]{1,8}/g) ?? [];
    const record: FakeStreamRecord = { index: pacing.index, piecesTotal: pieces.length, piecesSent: 0, aborted: false };
    this.streams.push(record);
    for (const [i, piece] of pieces.entries()) {
      if (i > 0 && pacing.pieceDelayMs > 0 && !(await sleep(pacing.pieceDelayMs, pacing.signal))) {
        record.aborted = true;
        return;
      }
      if (i > 0 && i === pieces.length - 1 && pacing.holdLastPiece) await pacing.holdLastPiece;
      send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      record.piecesSent++;
    }
    r.toolCalls?.forEach((call, i) => {
      send({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] },
            finish_reason: null,
          },
        ],
      });
      send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: call.function.arguments } }] }, finish_reason: null }] });
    });
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: r.finishReason }] });
    if (r.usage) send({ ...base, choices: [], usage: r.usage });
    res.end('data: [DONE]\n\n');
  }

  private async handleEmbeddings(body: Record<string, unknown>, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const reply: FakeEmbeddingReply = this.embeddingQueue.shift() ?? { kind: 'vectors' };
    if (reply.delayMs && !(await sleep(reply.delayMs, signal))) return;
    switch (reply.kind) {
      case 'error':
        return this.sendError(res, reply.status, reply.message ?? `scripted error ${reply.status}`);
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(reply.body ?? '{"object":"list","data":[{"embedding":');
        return;
      case 'vectors': {
        const raw = body.input;
        const inputs = Array.isArray(raw) ? raw : [raw];
        if (inputs.length === 0 || inputs.some((t) => typeof t !== 'string'))
          return this.sendError(res, 400, "'input' must be a string or an array of strings");
        if (inputs.some((t) => (t as string).length === 0)) return this.sendError(res, 400, "'input' must not contain empty strings");
        const requested = typeof body.dimensions === 'number' ? body.dimensions : undefined;
        const dimension = reply.dimension ?? requested ?? this.embeddingDimension;
        const scale = reply.scale ?? this.embeddingScale;
        const base64 = body.encoding_format === 'base64';
        const data = (inputs as string[]).map((text, index) => {
          const vector = fakeEmbedding(text, dimension).map((x) => x * scale);
          const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
          return { object: 'embedding', index, embedding };
        });
        const promptTokens = (inputs as string[]).reduce((s, t) => s + estimateTokens(t), 0);
        return this.sendJson(res, 200, {
          object: 'list',
          data,
          model: typeof body.model === 'string' ? body.model : this.model,
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
        });
      }
    }
  }

  private sendJson(res: ServerResponse, status: number, payload: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  }

  private sendError(res: ServerResponse, status: number, message: string): void {
    this.sendJson(res, status, { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } });
  }
}
