/**
 * A predicate over an error and what it wraps (TypeORM's `driverError`, a `cause`, and with `aggregate` an
 * AggregateError's `errors`), up to 3 levels deep: true when one of them has a `code` in `codes` or a message `messages` matches.
 */
function errorChainMatcher(codes: ReadonlySet<string>, messages: RegExp, options: { aggregate?: boolean } = {}): (error: unknown) => boolean {
  const matches = (error: unknown, depth: number): boolean => {
    if (!error || typeof error !== 'object' || depth > 3) return false;
    const e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
    if (typeof e.code === 'string' && codes.has(e.code)) return true;
    if (typeof e.message === 'string' && messages.test(e.message)) return true;
    if (options.aggregate && Array.isArray(e.errors) && e.errors.some((inner) => matches(inner, depth + 1))) return true;
    return matches(e.driverError, depth + 1) || matches(e.cause, depth + 1);
  };
  return (error) => matches(error, 0);
}

const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  // The database or its tables are gone underneath a running app (a drop-and-restore in progress): the
  // boot-time schema check guarantees they exist otherwise, so this is "not ready", not a bug to 500.
  '3D000',
  '42P01',
  'DATABASE_NOT_READY',
]);

const DB_UNAVAILABLE_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Cannot use a pool after calling end|Client has encountered a connection error|not queryable|canceling statement due to statement timeout|the database system is (starting up|shutting down|in recovery)/i;

/**
 * The database answers but its data is not there yet (e.g. the API-key table emptied by a restore in
 * progress): answered like an outage, 503 with Retry-After, so valid credentials never get a 401.
 */
export class DatabaseNotReadyError extends Error {
  readonly code = 'DATABASE_NOT_READY';
}

/** The `code` of the 503 every route answers while the database is unreachable. */
export const DATABASE_UNAVAILABLE_CODE = 'DATABASE_UNAVAILABLE';

/** Seconds a client should wait before retrying a `DATABASE_UNAVAILABLE` answer (the `Retry-After` header). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether an error means the database is unreachable or too slow to answer within its bounds
 * (connection refused/reset/terminated/timed out, pool wait exceeded, statement timeout, server
 * starting or shutting down, too many connections): the global filter answers these with 503. Node's happy-eyeballs
 * connect (localhost → ::1 and 127.0.0.1) fails with an AggregateError: its `errors` count too.
 */
export const isDatabaseUnavailable: (error: unknown) => boolean = errorChainMatcher(DB_UNAVAILABLE_CODES, DB_UNAVAILABLE_MESSAGES, { aggregate: true });

/** The `code` of the 503 a request answers when the database undid its work to resolve a conflict. */
export const DATABASE_CONFLICT_CODE = 'DATABASE_CONFLICT';

/** Seconds a client should wait before repeating a `DATABASE_CONFLICT` request (the conflict is already resolved). */
export const CONFLICT_RETRY_AFTER_SECONDS = 1;

// 40P01 deadlock_detected, 40001 serialization_failure: the database rolled the statement back, so the request
// wrote nothing and repeating it is safe. On a Citus cluster a shard being moved or split (isolation, rebalance)
// can also fail a statement that routed to its old placement (docs/SCALING.md "Operations runbook").
const CONFLICT_CODES = new Set(['40P01', '40001']);
const CONFLICT_MESSAGES = /could not find valid entry for shard/i;

/**
 * Whether the database undid the request's statement to resolve a conflict with concurrent work (a deadlock, a
 * serialization failure, a shard moved underneath it): the global filter answers 503 with a short Retry-After.
 */
export const isTransientConflict: (error: unknown) => boolean = errorChainMatcher(CONFLICT_CODES, CONFLICT_MESSAGES);

/** The `code` of the 507 a write answers while the database's disk is full. */
export const STORAGE_FULL_CODE = 'STORAGE_FULL';

/** Seconds a client should wait before retrying a `STORAGE_FULL` answer (an operator must free space). */
export const STORAGE_RETRY_AFTER_SECONDS = 60;

// 53100 disk_full (PostgreSQL "could not extend file … No space left on device", also raised by the
// embedded database's file system), 53400 configuration_limit_exceeded (temp_file_limit); ENOSPC/EDQUOT
// from Node's own writes. Emscripten (the embedded database) reports ENOSPC as errno 51.
const STORAGE_FULL_CODES = new Set(['53100', 'ENOSPC', 'EDQUOT']);
const STORAGE_FULL_MESSAGES = /No space left on device|could not extend file|disk quota exceeded/i;

/** Whether an error means the storage under the database (or the data directory) is full. */
export const isStorageFull: (error: unknown) => boolean = errorChainMatcher(STORAGE_FULL_CODES, STORAGE_FULL_MESSAGES);
