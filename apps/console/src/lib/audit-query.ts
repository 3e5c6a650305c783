/** The Audit page's filters as typed: days (YYYY-MM-DD) in the operator's time zone, snake_case names, a key id. */
export type AuditFilter = {
  from: string;
  to: string;
  resourceType: string;
  action: string;
  actorKeyId: string;
};

export const EMPTY_AUDIT_FILTER: AuditFilter = { from: '', to: '', resourceType: '', action: '', actorKeyId: '' };

export interface AuditQuery {
  from?: string;
  to?: string;
  resourceType?: string;
  action?: string;
  actorKeyId?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Local midnight of a YYYY-MM-DD day, `plusDays` later, as an ISO instant; null when it is not a day. */
function localMidnight(day: string, plusDays: number): string | null {
  if (!DAY.test(day)) return null;
  const [year, month, date] = day.split('-').map(Number);
  const instant = new Date(year, month - 1, date + plusDays);
  return Number.isNaN(instant.getTime()) ? null : instant.toISOString();
}

/**
 * The query of `GET /admin/audit` (and its export) for the filters (docs/http-edge.md "Audit log"): `from` is the
 * start of its day, `to` the start of the day after (the API's `to` is exclusive), both in the browser's time zone,
 * so "to 2026-12-03" includes all of that day. Blank fields are left out; a field that is not what it should be
 * is sent as typed, so the API's 400 names it (the console does not re-implement validation).
 */
export function auditQuery(filter: AuditFilter): AuditQuery {
  const query: AuditQuery = {};
  const from = filter.from.trim();
  const to = filter.to.trim();
  if (from) query.from = localMidnight(from, 0) ?? from;
  if (to) query.to = localMidnight(to, 1) ?? to;
  for (const key of ['resourceType', 'action', 'actorKeyId'] as const) {
    const value = filter[key].trim();
    if (value) query[key] = value;
  }
  return query;
}

/** The export's file name: the filtered days when given, else today. */
export function auditFileName(filter: AuditFilter, today: string): string {
  const from = filter.from.trim();
  const to = filter.to.trim();
  return from || to ? `audit-${from || 'start'}-${to || today}.csv` : `audit-${today}.csv`;
}
