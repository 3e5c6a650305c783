import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import { exactTimestampSql, type KeysetCursor } from '@arbiter/common';

/** One keyset of a list (newest first over (timestamp, id), `@arbiter/common` `Keyset`) as Kysely fragments. */
export interface TypedKeyset {
  /** The cursor key to select beside the row (`toPage` reads `cursorTs`, `cursorId`). */
  readonly cursor: readonly [AliasedRawBuilder<string, 'cursorTs'>, AliasedRawBuilder<string, 'cursorId'>];
  /** Rows after the cursor in the list's order; `TRUE` on the first page. */
  after(cursor: KeysetCursor | null): RawBuilder<boolean>;
  readonly orderBy: RawBuilder<unknown>;
}

/**
 * The keyset pagination of `@arbiter/common` (cursor format, microsecond timestamps, `toPage`) on the typed
 * data layer: `.select(ks.cursor).where(ks.after(page.after)).orderBy(ks.orderBy).limit(page.limit + 1)`.
 * `timestamp` and `id` are the columns as the statement names them (e.g. `r.created_at`, `r.id`).
 */
export function typedKeyset(timestamp: string, id: string): TypedKeyset {
  const ts = sql.ref(timestamp);
  const key = sql.ref(id);
  return {
    cursor: [sql<string>`${sql.raw(exactTimestampSql(timestamp))}`.as('cursorTs'), sql<string>`${key}::text`.as('cursorId')],
    after: (cursor) => (cursor === null ? sql<boolean>`TRUE` : sql<boolean>`(${ts}, ${key}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`),
    orderBy: sql`${ts} DESC, ${key} DESC`,
  };
}
