/**
 * The streamed chat turn (docs/chat-clients.md "Streaming"): server-sent event encoding and the pieces the
 * `delta` events carry. Pure: no Nest, no Fastify.
 */
import type { LookupResult } from '@arbiter/retrieval';
import type { ChatReference, LookupRecord } from './chat-turn.js';
import type { LookupToolArgs } from './knowledge-agent.js';

/** Named events of `POST /ai/chat` with `Accept: text/event-stream`, in the order they can occur. */
export type ChatStreamEventName = 'route' | 'lookup' | 'delta' | 'done' | 'error';

/** One SSE event: `event: <name>\ndata: <one line of JSON>\n\n` (JSON.stringify never emits a raw newline). */
export function sseEvent(name: ChatStreamEventName, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** An unnamed `data:` line, as OpenAI's streaming sends it (`/v1/chat/completions`); `[DONE]` goes as is. */
export function sseData(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** A heartbeat: an SSE comment, ignored by every client, that keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/** What the turn reports while it runs (the streamed events before `delta`). */
export interface ChatTurnObserver {
  /** Fires when the client goes away: the turn stops and the session is closed FAILED `client_disconnected`. */
  signal?: AbortSignal;
  /** Earlier messages of the conversation the model sees before the question (the OpenAI-compatible endpoint's history; unused offline). */
  history?: readonly { role: 'user' | 'assistant'; content: string }[];
  /** The session and its conversation exist (before the route). */
  started?(ids: { sessionId: string; conversationId: string }): void;
  route?(event: ChatRouteEvent): void;
  lookup?(event: ChatLookupEvent): void;
  /**
   * A piece of the model's text as the model streams it; `step` numbers the model call. `preamble` tells
   * whether that text, ending the run now, would be the reply (knowledge-answer.ts `answerPreamble`).
   */
  token?(step: number, text: string, preamble: () => AnswerPreamble): void;
  /**
   * The turn's reply is decided, before its records are written (the finish statement): a stream sends it as
   * `delta`s now and its `done` only after the turn returns, so the records are durable before `done`.
   */
  answered?(reply: string): void;
}

/** Whether the model's answer would be the reply as the lookups stand, and the text the reply puts before it (a caveat). */
export type AnswerPreamble = { stream: false } | { stream: true; prefix: string };

/** One `delta`: more of the reply, or (`replace`) the whole reply instead of what was sent so far. */
export interface ChatDelta {
  text: string;
  replace?: true;
}

/**
 * The `delta` events of a streamed turn (docs/chat-clients.md "Streaming"). With a model, its answer goes out
 * token by token as it comes, when the confidence policy will keep it (`preamble`: after the caveat, if any);
 * leading and trailing whitespace are held back, as the reply is trimmed. `finish` then sends the rest of the
 * reply (its sources) — or, if the reply is not what was streamed (the model's answer was dropped after it
 * began: a timeout mid-answer, tool calls after text), the whole reply with `replace: true`. A reply without
 * tokens (offline, a rule answer, a clarification…) goes out in sentence pieces.
 */
export class AnswerRelay {
  private sent = '';
  private step: number | null = null;
  /** null: this model call's first visible text has not come yet. */
  private relaying: boolean | null = null;
  private held = '';
  private replaceNext = false;

  constructor(private readonly emit: (delta: ChatDelta) => void) {}

  /** What the client has of the reply so far. */
  get streamed(): string {
    return this.sent;
  }

  token(step: number, text: string, preamble: () => AnswerPreamble): void {
    if (step !== this.step) {
      this.step = step;
      this.relaying = null;
      this.held = '';
    }
    if (this.relaying === false) return;
    let piece = text;
    if (this.relaying === null) {
      const start = piece.search(/\S/);
      if (start < 0) return;
      const decided = preamble();
      this.relaying = decided.stream;
      if (!decided.stream) return;
      // An earlier model call's text went out and did not end the run: this answer takes its place.
      this.replaceNext = this.sent !== '';
      piece = decided.prefix + piece.slice(start);
    }
    const combined = this.held + piece;
    const end = combined.search(/\s*$/);
    this.held = combined.slice(end);
    if (end > 0) this.out(combined.slice(0, end));
  }

  /** The turn's reply is final: send what the client lacks of it. */
  finish(reply: string): void {
    if (this.sent === '') {
      for (const piece of sentencePieces(reply)) this.out(piece);
      return;
    }
    if (reply.startsWith(this.sent)) {
      if (reply.length > this.sent.length) this.out(reply.slice(this.sent.length));
      return;
    }
    this.replaceNext = true;
    this.out(reply);
  }

  private out(text: string): void {
    if (this.replaceNext) {
      this.replaceNext = false;
      this.sent = text;
      this.emit({ text, replace: true });
      return;
    }
    this.sent += text;
    this.emit({ text });
  }
}

export interface ChatRouteEvent {
  intent: string | null;
  confidence: number;
  needClarify: boolean;
  decisionReason: string;
  candidates: { intent: string; confidence: number }[];
}

/** One lookup's grade and what it found, as the final body's `references` name them (fileName, page, pageEnd, section). */
export interface ChatLookupEvent {
  query: string;
  domain?: string;
  relevanceLevel: string;
  confidence: { score: number; level: string };
  references: ChatReference[];
  /** Found again but withheld: cited earlier in the conversation. */
  alreadyCited: string[];
}

/** The `lookup` event of one lookup (the results the turn may quote, minus those cited earlier). */
export function lookupEvent(
  args: Pick<LookupToolArgs, 'query' | 'domain'>,
  result: LookupResult,
  record: Pick<LookupRecord, 'items' | 'withheld'>,
): ChatLookupEvent {
  return {
    query: args.query,
    ...(args.domain ? { domain: args.domain } : {}),
    relevanceLevel: result.relevanceLevel,
    confidence: { score: result.confidence.score, level: result.confidence.level },
    references: record.items.map((r) => ({
      filePath: r.filePath,
      title: r.title,
      similarity: Math.round(r.similarity * 10000) / 10000,
      relevanceLevel: result.relevanceLevel,
      fileName: r.fileName ?? null,
      page: r.page ?? null,
      pageEnd: r.pageEnd ?? null,
      section: r.section ?? null,
    })),
    alreadyCited: record.withheld.map((r) => r.filePath),
  };
}

/** The error a turn ends with when its client disconnected (recorded on the session). */
export const CLIENT_DISCONNECTED = 'client_disconnected';

export class ClientDisconnectedError extends Error {
  constructor() {
    super(CLIENT_DISCONNECTED);
    this.name = 'ClientDisconnectedError';
  }
}

/**
 * The reply cut after each sentence end (。！？!?; and `.` followed by a space or the end), keeping the
 * punctuation and the following whitespace with the piece, so the pieces concatenate to the reply exactly.
 */
export function sentencePieces(text: string): string[] {
  const pieces: string[] = [];
  const end = /[。！？!?；;\n]+\s*|\.(?:\s+|$)/g;
  let start = 0;
  for (let m = end.exec(text); m !== null; m = end.exec(text)) {
    const stop = m.index + m[0].length;
    if (stop > start) pieces.push(text.slice(start, stop));
    start = stop;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** Whether a chat request asks for the stream: `"stream": true`, or an `Accept` naming text/event-stream unless `"stream": false`. */
export function wantsEventStream(accept: string | string[] | undefined, stream: boolean | undefined): boolean {
  if (stream !== undefined) return stream;
  const values = Array.isArray(accept) ? accept : accept ? [accept] : [];
  return values.some((v) => v.split(',').some((part) => part.split(';')[0].trim().toLowerCase() === 'text/event-stream'));
}
