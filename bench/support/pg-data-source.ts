import type pg from 'pg';
import { DataSource } from 'typeorm';
import { Database } from '@arbiter/database';

type Rows = (sql: string, params?: unknown[]) => Promise<unknown[]>;

/**
 * A pg pool or client standing in for the TypeORM DataSource where a repository only needs
 * `query()` and `transaction([isolation,] work)` (benchmarks and crash-test children, no Nest).
 */
export function pgAsDataSource(db: pg.Pool | pg.Client): DataSource {
  const query: Rows = async (sql, params) => (await db.query(sql, params)).rows;
  const transaction = async <T>(...args: [(m: { query: Rows }) => Promise<T>] | [string, (m: { query: Rows }) => Promise<T>]): Promise<T> => {
    const work = args[args.length - 1] as (m: { query: Rows }) => Promise<T>;
    const client = 'connect' in db && 'totalCount' in db ? await db.connect() : (db as pg.Client);
    try {
      await client.query(args.length === 2 ? `BEGIN ISOLATION LEVEL ${args[0]}` : 'BEGIN');
      const result = await work({ query: async (sql, params) => (await client.query(sql, params)).rows });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      if (client !== db) (client as pg.PoolClient).release();
    }
  };
  return { query, transaction } as unknown as DataSource;
}

/**
 * The typed data layer (`Database`, docs/data-layer.md) over a pg pool, for repositories on it in benchmarks
 * and child processes without Nest: `Database` only takes the pool TypeORM connected (`driver.master`).
 */
export function pgAsDatabase(pool: pg.Pool): Database {
  return new Database(Object.assign(Object.create(DataSource.prototype) as DataSource, { driver: { master: pool } }));
}
