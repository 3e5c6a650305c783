import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DataSource, type DataSourceOptions, type Logger } from 'typeorm';
import { runMigrations, startEmbeddedPostgres } from '@arbiter/database';
import { createCitusDatabase, dropCitusDatabase } from './citus.js';
import { postgresAdminUrl, testDbKind, withDatabase, type TestDbKind } from './test-db-env.js';
import { ensureTemplate } from './template.js';

export interface TestDatabase {
  url: string;
  kind: TestDbKind;
  /** Plain pg pool for assertions straight against the database. */
  pool: pg.Pool;
  close(): Promise<void>;
}

const MIGRATIONS_DIR = path.resolve('migrations');

/**
 * The assertion pool. An idle connection the server closes (seen on PostgreSQL as 57P01 while other
 * test files run in parallel) must not crash the test file as an unhandled 'error' event: the pool
 * drops that client and the next query opens a new one; a query in flight still fails loudly.
 */
function assertionPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  return pool;
}

/** A fresh, migrated, isolated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDbKind() === 'citus') return createCitusTestDatabase();
  const template = await ensureTemplate();
  if (testDbKind() === 'postgres') {
    const name = `arbiter_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresAdminUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const url = withDatabase(postgresAdminUrl(), name);
    const pool = assertionPool(url, 4);
    return {
      url,
      kind: 'postgres',
      pool,
      close: async () => {
        await pool.end();
        const drop = new pg.Client({ connectionString: postgresAdminUrl() });
        await drop.connect();
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await drop.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-t-'));
  cpSync(template, dir, { recursive: true });
  const embedded = await startEmbeddedPostgres(dir, 24);
  const pool = assertionPool(embedded.url, 2);
  return {
    url: embedded.url,
    kind: 'pglite',
    pool,
    close: async () => {
      await pool.end();
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on every node of the Citus cluster, migrated (and so distributed: migration 0260). */
async function createCitusTestDatabase(): Promise<TestDatabase> {
  const name = `arbiter_t_${randomBytes(6).toString('hex')}`;
  let url: string;
  try {
    url = await createCitusDatabase(name);
    await runMigrations(url, MIGRATIONS_DIR);
  } catch (error) {
    await dropCitusDatabase(name).catch(() => undefined);
    throw error;
  }
  const pool = assertionPool(url, 4);
  return {
    url,
    kind: 'citus',
    pool,
    close: async () => {
      await pool.end();
      await dropCitusDatabase(name);
    },
  };
}

/**
 * A TypeORM connection to a test database for integration tests (entities only, no schema changes, the
 * app's uuid extension, a pool of two unless `max` says otherwise): the one place a spec builds a `DataSource`.
 */
export function connectDataSource(
  url: string,
  entities: NonNullable<DataSourceOptions['entities']> = [],
  options: { max?: number; logger?: Logger } = {},
): Promise<DataSource> {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    synchronize: false,
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    logging: false,
    ...(options.logger ? { logger: options.logger } : {}),
    extra: { max: options.max ?? 2 },
  }).initialize();
}
