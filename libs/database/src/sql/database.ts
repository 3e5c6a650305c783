import type { EventEmitter } from 'node:events';
import { Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Kysely, PostgresDialect, sql, type PostgresPool, type Transaction } from 'kysely';
import type { DataSource } from 'typeorm';
import type { DB } from '../generated/db.js';
import { preparingPool } from './prepared-statements.js';

/** What a repository runs its statements on: the database, or one transaction of it. */
export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;

/** Writes a change's audit entry (docs/http-edge.md "Audit log") in the change's transaction, given what the change wrote. */
export type Recorder<T> = (tx: Db, written: T) => Promise<void>;

/**
 * A connection the server drops while it is checked out (between a transaction's statements) emits 'error' on
 * its client, which the pool only hears while the client is idle: unheard, the event would crash the process.
 * The statement in flight, or the next one, still fails on its own and the pool replaces the client.
 */
function hearDroppedConnections(pool: PostgresPool): void {
  const heard = new WeakSet<object>();
  (pool as unknown as EventEmitter).on('acquire', (client: EventEmitter) => {
    if (heard.has(client)) return;
    heard.add(client);
    client.on('error', () => undefined);
  });
}

/**
 * The typed data layer (docs/data-layer.md): Kysely over the same pg pool as TypeORM — one pool, one
 * bound on connections, the same timeouts — with table types generated from the migrations
 * (`npm run db:types`, libs/database/src/generated/db.ts). Repositories write statements with the query
 * builder, or with Kysely's `sql` template where SQL says it better; SQL fragments shared between libs
 * are functions returning `sql` expressions, so placeholders are numbered by Kysely, never by hand.
 */
@Injectable()
export class Database {
  readonly db: Db;

  constructor(@InjectDataSource() dataSource: DataSource, @Optional() config?: AppConfig) {
    // TypeORM has connected by the time a provider gets its DataSource: its pg pool is `driver.master`.
    const pool = (dataSource.driver as unknown as { master: PostgresPool }).master;
    hearDroppedConnections(pool);
    // Repeated statements run prepared (docs/hot-paths.md "Prepared statements"); without a config (tools, tests) too.
    const prepared = config?.database.preparedStatements ?? true;
    this.db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: prepared ? preparingPool(pool) : pool }) });
  }

  private distributed?: Promise<boolean>;

  /**
   * Whether the tables are distributed: the citus extension is installed (docs/SCALING.md "Running on Citus"). Asked
   * once; the few statements Citus cannot run as written (a lock across shards) take another form there. A caller in
   * a transaction passes it: on the embedded database another connection's statement waits for that transaction.
   */
  isDistributed(executor: Db = this.db): Promise<boolean> {
    this.distributed ??= sql<{ citus: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`
      .execute(executor)
      .then(({ rows }) => rows[0]?.citus === true)
      .catch((error: unknown) => {
        this.distributed = undefined;
        throw error;
      });
    return this.distributed;
  }

  /** Runs `work` in one transaction; it commits when `work` resolves and rolls back when it throws. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Runs `work`, and with `record` (the change's audit entry) in one transaction with it: `record` sees what `work`
   * returned and is not called when it wrote nothing (null, undefined or false). Without `record`, one statement's work
   * runs on the pool, outside a transaction.
   */
  async recorded<T>(work: (db: Db) => Promise<T>, record: Recorder<NonNullable<T>> | undefined): Promise<T> {
    if (!record) return work(this.db);
    return this.transaction(async (tx) => {
      const result = await work(tx);
      if (result !== null && result !== undefined && result !== false) await record(tx, result);
      return result;
    });
  }
}
