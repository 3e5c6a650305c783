import { createHash } from 'node:crypto';

/** Longest accepted `Idempotency-Key` (the column is varchar(200)). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/** JSON with object keys sorted at every level, so the same body sent with another key order hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 (hex) of a request body, for comparing retries that carry the same Idempotency-Key. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** The header value, trimmed; undefined when absent or blank; null when invalid (too long or not printable ASCII). */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined | null {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  return value.length <= IDEMPOTENCY_KEY_MAX_LENGTH && /^[\x21-\x7e]+$/.test(value) ? value : null;
}
