import type { ApiKeyDto } from './dto/api-key.dto.js';
import type { ApiKeyRecord } from './tenancy.repository.js';

/** A key row as the API shows it; `status` is derived at `now`. */
export function toApiKeyDto(record: ApiKeyRecord, now = new Date()): ApiKeyDto {
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  const status = record.revokedAt ? 'revoked' : record.expiresAt && record.expiresAt <= now ? 'expired' : 'active';
  const graceOpen = !record.revokedAt && record.previousValidUntil !== null && record.previousValidUntil > now;
  return {
    id: record.id,
    name: record.name,
    role: record.role,
    prefix: record.prefix,
    status,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: iso(record.lastUsedAt),
    expiresAt: iso(record.expiresAt),
    revokedAt: iso(record.revokedAt),
    allowedOrigins: record.allowedOrigins,
    previousSecretValidUntil: graceOpen ? iso(record.previousValidUntil) : null,
  };
}
