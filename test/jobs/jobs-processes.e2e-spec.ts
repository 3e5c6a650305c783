import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@arbiter/testing';

interface ChildResult {
  created: number;
  executed: number;
}

function startChild(url: string): { child: ChildProcessWithoutNullStreams; ready: Promise<void>; result: Promise<ChildResult> } {
  const child = spawn(process.execPath, ['--import', './bench/support/register.mjs', 'test/jobs/schedule-child.ts', url], { cwd: process.cwd() });
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ready\n')) onReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.on('exit', (code) => {
      const line = /result (.+)\n/.exec(stdout)?.[1];
      if (code !== 0 || !line) reject(new Error(`child exited ${code}: ${stderr.slice(-2000)}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
  return { child, ready, result };
}

/** Two real OS processes running the app on one database: a cron tick creates and runs each job once. */
describe(`scheduled jobs across two processes (${process.env.TEST_DB ?? 'pglite'})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`INSERT INTO tenant (name) VALUES ('proc-a'), ('proc-b')`);
  });
  afterAll(async () => {
    await db.close();
  });

  it('creates one run per tenant for a tick and executes each exactly once', async () => {
    const children = [startChild(db.url), startChild(db.url)];
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.child.stdin.write('go\n');
    const results = await Promise.all(children.map((c) => c.result));

    expect(results.reduce((n, r) => n + r.created, 0)).toBe(2);
    expect(results.reduce((n, r) => n + r.executed, 0)).toBe(2);
    const { rows } = await db.pool.query<{ tenant: string; status: string; attempts: number; processed: number }>(
      `SELECT t.name AS tenant, r.status, r.attempts, r.processed FROM job_run r JOIN tenant t ON t.id = r.tenant_id
        WHERE r.name = 'test.two-process' ORDER BY t.name`,
    );
    expect(rows).toEqual([
      { tenant: 'proc-a', status: 'succeeded', attempts: 1, processed: 1 },
      { tenant: 'proc-b', status: 'succeeded', attempts: 1, processed: 1 },
    ]);
  }, 240_000);
});
