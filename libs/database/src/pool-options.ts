import pg from 'pg';

export interface DatabaseTimeouts {
  /** Opening one connection (TCP + startup) gives up after this long. */
  connectTimeoutMs: number;
  /** Server-side `statement_timeout` per connection; 0 = none. */
  statementTimeoutMs: number;
  /** Waiting for a free pool connection gives up after this long ("timeout exceeded when trying to connect" → 503). */
  poolWaitTimeoutMs: number;
}

/**
 * The `pg.Pool` options (TypeORM `extra`) that bound every wait on the database. pg-pool has one
 * `connectionTimeoutMillis` for both the queue and a new connection, so the pool gets the pool-wait
 * bound and each client its own connect bound (a new connection is cut at whichever comes first).
 */
export function boundedPoolOptions(max: number, timeouts: DatabaseTimeouts, embedded: boolean): Record<string, unknown> {
  const connectTimeoutMs = timeouts.connectTimeoutMs;
  class BoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  }
  return {
    max,
    connectionTimeoutMillis: timeouts.poolWaitTimeoutMs,
    Client: BoundedClient,
    // PGlite serves every connection from one backend, so a per-connection setting would leak across them.
    ...(timeouts.statementTimeoutMs > 0 && !embedded ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
  };
}

/** "host:port" (or the socket directory) of a connection string, without credentials, for error messages. */
export function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost';
    return `${host}${url.port ? `:${url.port}` : ''}${url.pathname}`;
  } catch {
    return 'the configured database';
  }
}
