/**
 * The client side of `bench:citus` and `bench:citus:drill`: the four writes and reads a support client makes
 * (chat turn, knowledge lookup, session ingest, feedback), each as one HTTP request that reports what a client
 * sees — the acknowledged id, or the error's kind (status and error code, or the network failure).
 */
import { CHAT_MESSAGES } from '../support/chat-messages.js';

export type Kind = 'chat' | 'lookup' | 'ingest' | 'feedback';
export const KINDS: readonly Kind[] = ['ingest', 'feedback', 'lookup', 'chat'];

/** A tenant's client key, as the load process needs it. */
export interface TenantKey {
  id: string;
  client: string;
}

export type FeedbackValue = 'useful' | 'not_useful';

/** What one request did: `ok` with the id it acknowledged (a session id), or the kind of its error. */
export type Outcome = { ok: true; id: string } | { ok: false; error: string };

/** An error's kind, the way a client can tell them apart: `503 DATABASE_UNAVAILABLE`, `500`, `network ECONNRESET`. */
function errorKind(status: number, body: unknown): string {
  const code = typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string' ? ` ${body.code}` : '';
  return `${status}${code}`;
}

async function post(base: string, path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json };
}

async function attempt(expected: number, send: () => Promise<{ status: number; json: unknown }>, idOf: (json: unknown) => string): Promise<Outcome> {
  try {
    const { status, json } = await send();
    return status === expected ? { ok: true, id: idOf(json) } : { ok: false, error: errorKind(status, json) };
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string }; message?: string };
    return { ok: false, error: `network ${e.cause?.code ?? e.name ?? e.message ?? 'error'}` };
  }
}

const field = (name: string) => (json: unknown) => String((json as Record<string, unknown>)[name]);

/** `POST /ai/chat`: 200 with the turn's session id. */
export function chat(base: string, tenant: TenantKey, n: number): Promise<Outcome> {
  return attempt(200, () => post(base, '/ai/chat', tenant.client, { message: CHAT_MESSAGES[n % CHAT_MESSAGES.length] }), field('sessionId'));
}

/** `POST /ai/knowledge/lookup` in a session of its own: 200 (its id is the lookup's session). */
export function lookup(base: string, tenant: TenantKey, n: number, sessionId: string): Promise<Outcome> {
  return attempt(
    200,
    () => post(base, '/ai/knowledge/lookup', tenant.client, { sessionId, query: CHAT_MESSAGES[n % CHAT_MESSAGES.length], topK: 5 }),
    () => sessionId,
  );
}

/**
 * `POST /api/sessions` with an Idempotency-Key: 201 with the stored session's id. A retry with the same key and
 * body answers the session stored first (the route's OpenAPI `Idempotency-Key` header), so a client retries it freely.
 */
export function ingest(base: string, tenant: TenantKey, n: number, idempotencyKey: string): Promise<Outcome> {
  const body = {
    query: `${CHAT_MESSAGES[n % CHAT_MESSAGES.length]} #${n}`,
    answer: '请检查伺服驱动器的电源并重启控制柜。',
    status: 'SUCCESS',
    stepCount: 2,
    toolCallCount: 1,
  };
  return attempt(201, () => post(base, '/api/sessions', tenant.client, body, { 'idempotency-key': idempotencyKey }), field('id'));
}

/** `POST /api/feedback`: 200; a repeat with the same value is idempotent (the route's OpenAPI description). */
export function feedback(base: string, tenant: TenantKey, sessionId: string, value: FeedbackValue): Promise<Outcome> {
  return attempt(
    200,
    () => post(base, '/api/feedback', tenant.client, { sessionId, feedback: value }),
    () => sessionId,
  );
}
