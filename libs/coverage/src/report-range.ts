import { CoverageErrorCode, CoverageException } from './coverage.exception.js';

/** Longest report/gap window, in calendar days (inclusive). */
export const MAX_RANGE_DAYS = 366;
/** Window when neither `from` nor `to` is given: the last 30 days including today. */
export const DEFAULT_RANGE_DAYS = 30;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ZONE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/** A real calendar date written `YYYY-MM-DD` (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 1970 && y <= 9999;
}

/** An IANA time-zone name both ICU and PostgreSQL understand ("UTC", "Asia/Shanghai"); no raw offsets. */
export function isTimeZone(value: string): boolean {
  if (!ZONE.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** Today's calendar date in `timeZone`. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

function addDays(date: string, days: number): string {
  const t = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export interface DateRange {
  /** First calendar day, inclusive, in `timeZone`. */
  from: string;
  /** Last calendar day, inclusive, in `timeZone`. */
  to: string;
  timeZone: string;
  /** Number of calendar days in the window. */
  days: number;
}

/**
 * Resolves an inclusive calendar-day window in a time zone. Missing `to` = today; missing `from` =
 * 29 days before `to`. `from` after `to`, or a window longer than MAX_RANGE_DAYS → INVALID_RANGE (400).
 * Formats are checked by the DTO; they are re-checked here so the function is safe on its own.
 */
export function resolveDateRange(input: { from?: string; to?: string; timeZone: string }, now: Date = new Date()): DateRange {
  const { timeZone } = input;
  if (!isTimeZone(timeZone)) throw new CoverageException(CoverageErrorCode.InvalidReportRange, `unknown time zone "${timeZone}"`, { field: 'timeZone' });
  for (const field of ['from', 'to'] as const) {
    const value = input[field];
    if (value !== undefined && !isCalendarDate(value)) {
      throw new CoverageException(CoverageErrorCode.InvalidReportRange, `${field} must be a calendar date YYYY-MM-DD`, { field });
    }
  }
  const to = input.to ?? (input.from ? maxDate(input.from, todayIn(timeZone, now)) : todayIn(timeZone, now));
  const from = input.from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1));
  if (from > to) throw new CoverageException(CoverageErrorCode.InvalidReportRange, `from (${from}) is after to (${to})`, { fields: ['from', 'to'] });
  const days = daysBetween(from, to) + 1;
  if (days > MAX_RANGE_DAYS) {
    throw new CoverageException(CoverageErrorCode.InvalidReportRange, `window of ${days} days is longer than ${MAX_RANGE_DAYS}`, { fields: ['from', 'to'] });
  }
  return { from, to, timeZone, days };
}

function maxDate(a: string, b: string): string {
  return a > b ? a : b;
}

/** Calendar-day bounds of a backfill; either side may be open. Only `from` after `to` is refused. */
export function resolveOpenRange(input: { from?: string; to?: string }): { from: string | null; to: string | null } {
  for (const field of ['from', 'to'] as const) {
    const value = input[field];
    if (value !== undefined && !isCalendarDate(value)) {
      throw new CoverageException(CoverageErrorCode.InvalidReportRange, `${field} must be a calendar date YYYY-MM-DD`, { field });
    }
  }
  if (input.from && input.to && input.from > input.to) {
    throw new CoverageException(CoverageErrorCode.InvalidReportRange, `from (${input.from}) is after to (${input.to})`, { fields: ['from', 'to'] });
  }
  return { from: input.from ?? null, to: input.to ?? null };
}
