import { DomainException } from './domain.exception.js';

/**
 * Keyset pagination, newest first, over (timestamp DESC, id DESC): one cursor format, one SQL
 * builder and one page builder for every list (intent rules, knowledge documents, bad cases, case
 * library, monitoring conversations, jobs). Repositories on the typed data layer take the same SQL as
 * Kysely fragments from `typedKeyset` (@arbiter/database).
 *
 * The cursor carries the row's timestamp exactly as PostgreSQL stores it (microseconds): a JS `Date`
 * keeps milliseconds only, so rows created within one millisecond would be skipped between pages.
 * Repositories therefore select the key with `keyset.columns` (formatted in SQL), never from a Date.
 */
export interface KeysetCursor {
  /** UTC ISO-8601 timestamp with microseconds, e.g. `2026-11-30T10:00:00.123456Z`. */
  createdAt: string;
  id: string;
}

/** Opaque to clients; base64url of `[timestamp, id]`. */
export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

const EXACT_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function decodeCursor(raw: string): KeysetCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      EXACT_TS.test(parsed[0]) &&
      !Number.isNaN(Date.parse(parsed[0])) &&
      typeof parsed[1] === 'string' &&
      UUID.test(parsed[1])
    ) {
      return { createdAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the typed error
  }
  throw new DomainException('INVALID_CURSOR', 400, 'cursor is malformed');
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Page size limits shared by every list endpoint (see `PageQueryDto`). */
export const PAGE_LIMITS = { default: 50, max: 200, cursorLength: 200 } as const;

/** A validated page request: the size and the decoded position (null = first page). */
export interface PageRequest {
  limit: number;
  after: KeysetCursor | null;
}

/** `{limit?, cursor?}` of a query → the page request (a malformed cursor is a 400 `INVALID_CURSOR`). */
export function pageRequest(query: { limit?: number; cursor?: string }, defaultLimit: number = PAGE_LIMITS.default): PageRequest {
  return { limit: query.limit ?? defaultLimit, after: query.cursor ? decodeCursor(query.cursor) : null };
}

/** A timestamptz column as the exact UTC ISO string a cursor carries (SQL, microseconds kept). */
export function exactTimestampSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** The cursor key every keyset row carries (selected by `Keyset.columns`). */
export interface KeysetRow {
  cursorTs: string;
  cursorId: string;
}

/**
 * The SQL of one keyset: `columns` to add to the select list, `where` for the position, `orderBy`,
 * and `limit` (one row more than the page, so `toPage` knows whether a next page exists).
 *
 * ```ts
 * const ks = new Keyset('r.created_at', 'r.id');
 * const params: unknown[] = [tenantId];
 * const rows = await ds.query(
 *   `SELECT r.*, ${ks.columns} FROM intent_rule r WHERE r.tenant_id = $1 AND ${ks.where(params, page.after)}
 *    ORDER BY ${ks.orderBy} LIMIT ${ks.limit(params, page.limit)}`, params);
 * return toPage(rows, page.limit, toRule);
 * ```
 */
export class Keyset {
  constructor(
    private readonly timestampColumn: string,
    private readonly idColumn: string,
  ) {}

  /** `"cursorTs"` (exact timestamp) and `"cursorId"` select-list entries. */
  get columns(): string {
    return `${exactTimestampSql(this.timestampColumn)} AS "cursorTs", ${this.idColumn}::text AS "cursorId"`;
  }

  /** Rows after the cursor in (timestamp DESC, id DESC) order; `TRUE` on the first page. Appends its parameters. */
  where(params: unknown[], after: KeysetCursor | null): string {
    if (after === null) return 'TRUE';
    params.push(after.createdAt, after.id);
    return `(${this.timestampColumn}, ${this.idColumn}) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }

  get orderBy(): string {
    return `${this.timestampColumn} DESC, ${this.idColumn} DESC`;
  }

  /** The LIMIT placeholder (page size + 1). Appends its parameter. */
  limit(params: unknown[], pageSize: number): string {
    params.push(pageSize + 1);
    return `$${params.length}`;
  }
}

/** The page from up to `limit + 1` keyset rows: the first `limit` mapped, and the cursor of the last one when more exist. */
export function toPage<R extends KeysetRow, T>(rows: readonly R[], limit: number, map: (row: R) => T): Page<T> {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return {
    items: kept.map(map),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.cursorTs, id: last.cursorId }) : null,
  };
}
