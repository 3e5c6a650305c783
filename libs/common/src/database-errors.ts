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
]);

const DB_UNAVAILABLE_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Cannot use a pool after calling end|Client has encountered a connection error|not queryable|canceling statement due to statement timeout|the database system is (starting up|shutting down|in recovery)/i;

/** The `code` of the 503 every route answers while the database is unreachable. */
export const DATABASE_UNAVAILABLE_CODE = 'DATABASE_UNAVAILABLE';

/** Seconds a client should wait before retrying a `DATABASE_UNAVAILABLE` answer (the `Retry-After` header). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether an error means the database is unreachable or too slow to answer within its bounds
 * (connection refused/reset/terminated/timed out, pool wait exceeded, statement timeout, server
 * starting or shutting down, too many connections): the global filter answers these with 503.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && DB_UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && DB_UNAVAILABLE_MESSAGES.test(e.message)) return true;
  // Node's happy-eyeballs connect (localhost → ::1 and 127.0.0.1) fails with an AggregateError.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
