/**
 * Window bounds of the monitoring endpoints (pure: no Nest, no database).
 * A bound is either a calendar day `YYYY-MM-DD` (in the tenant's time zone: `from` = its first instant,
 * `to` = the whole day included) or an ISO-8601 instant with an explicit zone (`2026-03-01T08:00:00Z`,
 * `2026-03-01T08:00:00.5+08:00`; `to` included).
 */
export type TimeBound = { kind: 'date'; date: string } | { kind: 'instant'; instant: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-](\d{2}):(\d{2}))$/;

/** Longest stats window, in days. */
export const MAX_STATS_DAYS = 366;
/** Stats window when neither bound is given: the last 30 days, today included. */
export const DEFAULT_STATS_DAYS = 30;

export function isCalendarDay(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return y >= 1970 && y <= 9999 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Parses a bound, or returns null when it is neither a real calendar day nor a zoned ISO-8601 instant. */
export function parseTimeBound(raw: unknown): TimeBound | null {
  if (typeof raw !== 'string' || raw.length > 40) return null;
  if (isCalendarDay(raw)) return { kind: 'date', date: raw };
  const m = INSTANT.exec(raw);
  if (!m) return null;
  const [, day, hh, mi, ss, , oh, om] = m;
  if (!isCalendarDay(day!) || Number(hh) > 23 || Number(mi) > 59 || Number(ss ?? 0) > 59) return null;
  if (oh !== undefined && (Number(oh) > 14 || Number(om) > 59)) return null;
  if (Number.isNaN(Date.parse(raw))) return null;
  return { kind: 'instant', instant: raw };
}

/** The SQL parameters of a bound: `[instant | null, date | null]`. */
export function boundParams(bound: TimeBound | null): [string | null, string | null] {
  if (!bound) return [null, null];
  return bound.kind === 'instant' ? [bound.instant, null] : [null, bound.date];
}
