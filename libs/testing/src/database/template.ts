import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { runMigrations, startEmbeddedPostgres } from '@arbiter/database';
import { postgresAdminUrl, testDbKind, testRunId, withDatabase } from './test-db-env.js';

const MIGRATIONS_DIR = path.resolve('migrations');

/** Runs `build` once per test run across jest workers (mkdir is the mutex, a marker file the latch). */
async function once(key: string, build: () => Promise<void>): Promise<void> {
  const lock = path.join(os.tmpdir(), `arbiter-lock-${key}`);
  const ready = `${lock}/ready`;
  const failed = `${lock}/failed`;
  try {
    mkdirSync(lock);
  } catch {
    for (let i = 0; i < 1200; i++) {
      if (existsSync(ready)) return;
      if (existsSync(failed)) throw new Error('Building the test template failed in another worker');
      await sleep(100);
    }
    throw new Error('Timed out waiting for the test template');
  }
  try {
    await build();
    writeFileSync(ready, '');
  } catch (error) {
    writeFileSync(failed, String(error));
    throw error;
  }
}

/** The migrated template for this run: a PGlite data directory or a PostgreSQL database name. */
export async function ensureTemplate(): Promise<string> {
  const run = testRunId();
  if (testDbKind() === 'postgres') {
    const name = `arbiter_tpl_${run}`;
    await once(`pg-${run}`, async () => {
      const admin = new pg.Client({ connectionString: postgresAdminUrl() });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      await runMigrations(withDatabase(postgresAdminUrl(), name), MIGRATIONS_DIR);
    });
    return name;
  }
  const dir = path.join(os.tmpdir(), `arbiter-tpl-${run}`);
  await once(`pglite-${run}`, async () => {
    rmSync(dir, { recursive: true, force: true });
    const embedded = await startEmbeddedPostgres(dir, 2);
    try {
      await runMigrations(embedded.url, MIGRATIONS_DIR);
    } finally {
      await embedded.close();
    }
  });
  return dir;
}
