import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRole } from './entities/api-key.entity.js';

const PREFIX: Record<ApiKeyRole, string> = { client: 'ak_cli_', operator: 'ak_op_', viewer: 'ak_view_' };

/** A new key: 32 random bytes; only its SHA-256 is stored (keys are high-entropy, so no slow hash needed). */
export function generateApiKey(role: ApiKeyRole): { key: string; hash: string; prefix: string } {
  const key = PREFIX[role] + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateAdminToken(): string {
  return 'adm_' + randomBytes(32).toString('base64url');
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
