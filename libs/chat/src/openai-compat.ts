/**
 * The OpenAI-compatible front door (docs/chat-clients.md "OpenAI-compatible endpoint"): `messages` → one chat
 * turn, and the turn's answer → `chat.completion` / `chat.completion.chunk` with Arbiter's own fields in
 * one extension object, `arbiter`. Pure: no Nest, no database.
 */
import { assertNever, type FieldError } from '@arbiter/common';
import type { ChatResponse } from './chat.service.js';
import { MAX_CHAT_MESSAGE_LENGTH } from './dto/chat.dto.js';

/** The one model `GET /v1/models` lists; any `model` value is accepted and echoed back. */
export const ARBITER_MODEL_ID = 'arbiter';
/** At most this many messages per request (413 above it). */
export const MAX_COMPLETION_MESSAGES = 64;
/** At most this many characters across every message's content (413 above it). */
export const MAX_COMPLETION_CHARS = 32_000;
export const COMPLETION_ROLES = ['system', 'developer', 'user', 'assistant'] as const;
export type CompletionRole = (typeof COMPLETION_ROLES)[number];

/** An earlier message the model may see (system and developer messages are accepted and not used). */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompletionTurn {
  /** The last message (a user message): the turn's question. */
  message: string;
  /** The user and assistant messages before it, in order. */
  history: HistoryMessage[];
  /** System and developer messages received and not used (the executor prompt is Arbiter's). */
  ignoredInstructions: number;
}

export type CompletionMapping = { ok: true; turn: CompletionTurn } | { ok: false; status: 400 | 413; errors: FieldError[] };

const isRole = (value: unknown): value is CompletionRole => typeof value === 'string' && (COMPLETION_ROLES as readonly string[]).includes(value);

/**
 * Validates `messages` (each problem named by its field, e.g. `messages[3].role`) and maps it onto one turn. `history`:
 * the configured limits of the conversation's history (CHAT_HISTORY_TURNS earlier user messages, CHAT_HISTORY_CHARS
 * characters of the user and assistant messages before the question, docs/chat-clients.md "Conversations"): 413 above them.
 */
export function mapCompletionMessages(messages: unknown, history?: { turns: number; chars: number }): CompletionMapping {
  const reject = (status: 400 | 413, field: string, error: string): CompletionMapping => ({ ok: false, status, errors: [{ field, errors: [error] }] });
  if (!Array.isArray(messages)) return reject(400, 'messages', 'messages must be an array');
  if (messages.length === 0) return reject(400, 'messages', 'messages must contain at least one message');
  if (messages.length > MAX_COMPLETION_MESSAGES)
    return reject(413, 'messages', `at most ${MAX_COMPLETION_MESSAGES} messages per request (MAX_COMPLETION_MESSAGES)`);
  const errors: FieldError[] = [];
  const valid: { role: CompletionRole; content: string }[] = [];
  let chars = 0;
  messages.forEach((raw: unknown, index) => {
    const at = `messages[${index}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      errors.push({ field: at, errors: ['each message must be an object with role and content'] });
      return;
    }
    const { role, content } = raw as { role?: unknown; content?: unknown };
    const problems = errors.length;
    if (!isRole(role)) errors.push({ field: `${at}.role`, errors: [`role must be one of ${COMPLETION_ROLES.join(', ')}`] });
    if (typeof content !== 'string') errors.push({ field: `${at}.content`, errors: ['content must be a string'] });
    else if (!/\S/.test(content)) errors.push({ field: `${at}.content`, errors: ['content must not be empty'] });
    else chars += content.length;
    if (errors.length === problems) valid.push({ role: role as CompletionRole, content: content as string });
  });
  if (errors.length) return { ok: false, status: 400, errors };
  const lastIndex = messages.length - 1;
  const last = valid[lastIndex];
  if (last.role !== 'user') return reject(400, `messages[${lastIndex}].role`, 'the last message must be the user message to answer');
  const message = last.content.trim();
  if (message.length > MAX_CHAT_MESSAGE_LENGTH)
    return reject(400, `messages[${lastIndex}].content`, `the message to answer must be at most ${MAX_CHAT_MESSAGE_LENGTH} characters`);
  if (chars > MAX_COMPLETION_CHARS)
    return reject(413, 'messages', `at most ${MAX_COMPLETION_CHARS} characters of content across all messages (MAX_COMPLETION_CHARS)`);
  const earlier = valid.slice(0, lastIndex);
  const kept = earlier.filter((m): m is HistoryMessage => m.role === 'user' || m.role === 'assistant').map((m) => ({ role: m.role, content: m.content }));
  if (history) {
    const turns = kept.filter((m) => m.role === 'user').length;
    if (turns > history.turns)
      return reject(413, 'messages', `at most ${history.turns} earlier user messages before the question (CHAT_HISTORY_TURNS); got ${turns}`);
    const keptChars = kept.reduce((n, m) => n + m.content.length, 0);
    if (keptChars > history.chars)
      return reject(413, 'messages', `at most ${history.chars} characters of earlier messages before the question (CHAT_HISTORY_CHARS); got ${keptChars}`);
  }
  return { ok: true, turn: { message, history: kept, ignoredInstructions: earlier.length - kept.length } };
}

/**
 * Arbiter's fields of the turn: everything of `POST /ai/chat`'s body but the reply, which is the message content
 * (docs/chat-clients.md "The arbiter object"). `reply` only on a streamed answer whose content chunks are not the
 * reply (the model's answer was dropped after it began streaming; content cannot be taken back on `/v1`).
 */
export type ArbiterExtension = Omit<ChatResponse, 'reply'> & { reply?: string };

export function arbiterExtension(response: ChatResponse, options: { includeReply?: boolean } = {}): ArbiterExtension {
  const { reply, ...extension } = response;
  return options.includeReply ? { ...extension, reply } : extension;
}

export interface CompletionIdentity {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

/** The non-streaming body: OpenAI's `chat.completion`, plus `arbiter`. Token usage is not reported (Arbiter does not count it per turn). */
export function completionBody(identity: CompletionIdentity, response: ChatResponse) {
  return {
    id: identity.id,
    object: 'chat.completion' as const,
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message: { role: 'assistant' as const, content: response.reply, refusal: null }, logprobs: null, finish_reason: 'stop' as const }],
    arbiter: arbiterExtension(response),
  };
}

/**
 * One streamed chunk: `{role}` opens, `{content}` pieces follow, the last has an empty delta,
 * `finish_reason: "stop"` and `arbiter`.
 */
export function completionChunk(
  identity: CompletionIdentity,
  part: { kind: 'open' } | { kind: 'content'; content: string } | { kind: 'finish'; response: ChatResponse; contentIsReply: boolean },
) {
  const base = { id: identity.id, object: 'chat.completion.chunk' as const, created: identity.created, model: identity.model };
  switch (part.kind) {
    case 'open':
      return { ...base, choices: [{ index: 0, delta: { role: 'assistant' as const, content: '' }, logprobs: null, finish_reason: null }] };
    case 'content':
      return { ...base, choices: [{ index: 0, delta: { content: part.content }, logprobs: null, finish_reason: null }] };
    case 'finish':
      return {
        ...base,
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' as const }],
        arbiter: arbiterExtension(part.response, { includeReply: !part.contentIsReply }),
      };
    default:
      return assertNever(part, 'completion chunk part');
  }
}

/** `GET /v1/models`. */
export function modelList() {
  return { object: 'list' as const, data: [{ id: ARBITER_MODEL_ID, object: 'model' as const, created: 1_764_547_200, owned_by: 'arbiter' }] };
}
