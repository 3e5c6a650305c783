import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export default async function globalTeardown(): Promise<void> {
  const run = process.env.ARBITER_TEST_RUN;
  if (!run) return;
  rmSync(path.join(os.tmpdir(), `arbiter-tpl-${run}`), { recursive: true, force: true });
  if ((process.env.TEST_DB ?? 'pglite') === 'postgres') {
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS arbiter_tpl_${run} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}
