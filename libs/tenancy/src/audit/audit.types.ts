import type { RequestActor } from '@arbiter/common';

/** What a change records (docs/http-edge.md "Audit log"). Never a secret. */
export interface AuditChange {
  /** What was done: `create`, `update`, `delete`, `revoke`, `rotate`, `apply`, … */
  action: string;
  /** snake_case: `api_key`, `intent_rule`, `tenant_limits`, … */
  resourceType: string;
  resourceId?: string | null;
  /** A human name of the resource: the key's name, the intent, the file path. */
  label?: string | null;
  /** Before/after for settings, counts for bulk work. */
  summary?: Record<string, unknown>;
}

export interface AuditEntry extends Required<Omit<AuditChange, 'summary'>> {
  id: string;
  tenantId: string;
  occurredAt: Date;
  actor: RequestActor | { kind: 'system' };
  requestId: string | null;
  summary: Record<string, unknown>;
}

export interface AuditFilter {
  from?: Date;
  to?: Date;
  resourceType?: string;
  action?: string;
  actorKeyId?: string;
}

/** Keys that never go into a summary, whatever a caller passes (a secret must not reach the log). */
const SECRET_KEYS = /^(key|secret|password|token|apiKey|api_key|authorization)$/i;

/** The summary as stored: secrets dropped at any depth, strings capped. */
export function sanitizeSummary(value: unknown, depth = 0): unknown {
  if (depth > 6) return '…';
  if (typeof value === 'string') return value.length > 500 ? `${value.slice(0, 500)}…` : value;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => sanitizeSummary(v, depth + 1));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !SECRET_KEYS.test(k))
        .map(([k, v]) => [k, sanitizeSummary(v, depth + 1)]),
    );
  return value;
}
