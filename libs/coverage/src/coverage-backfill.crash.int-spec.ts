import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import type { BackfillState } from './coverage-backfill.js';

const CHILD = ['--import', './bench/support/register.mjs', 'test/coverage/backfill-child.ts'];

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  batchesSeen: number;
  stdout: string;
}

/** Runs the backfill child; with `killAfterBatches`, SIGKILLs it a random few ms after that many batches. */
function runChild(args: string[], killAfterBatches?: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CHILD, ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let batchesSeen = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      batchesSeen = (stdout.match(/^batch /gm) ?? []).length;
      if (killAfterBatches !== undefined && batchesSeen >= killAfterBatches && !child.killed) {
        // Land the kill anywhere in the next batch: reading, evaluating, inserting or checkpointing.
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 15));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`child failed (${code}): ${stderr}`));
      else resolve({ code, signal, batchesSeen, stdout });
    });
  });
}

describe(`backfill crash test: SIGKILL mid-run, restart (${process.env.TEST_DB ?? 'pglite'})`, () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    medium = await newMediumTest();
    db = medium.db;
    dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-crash-'));
  }, 180_000);
  afterAll(async () => {
    await medium?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Round 1 runs the row-by-row backfill, round 2 the set-based one the job runs for v1 (docs/hot-paths.md).
  it.each([
    [1, 'rows'],
    [2, 'set'],
  ])('round %i (%s): every succeeded session decided exactly once, the malformed one reported', async (round, mode) => {
    const [tenant] = await medium.tenants(`crash-${round}`);
    const conv = (await db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [tenant])).rows[0]!.id;
    const n = 3000;
    await db.pool.query(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, source_references, media, knowledge_searched, created_at)
       SELECT $1, $2, 'q' || (i % 50), CASE WHEN i % 17 = 0 THEN '未找到' ELSE 'ok' END,
              CASE WHEN i % 10 = 9 THEN 'FAILED' WHEN i % 10 = 8 THEN 'BAD_CASE' ELSE 'SUCCESS' END,
              CASE WHEN i = 1234 THEN '[{"score": "n/a"}]'::jsonb WHEN i % 2 = 0 THEN '[{"score": 0.6}]'::jsonb ELSE '[]'::jsonb END,
              CASE WHEN i % 7 = 0 THEN '[{"type": "image"}]'::jsonb ELSE '[]'::jsonb END,
              i % 3 = 0, timestamptz '2026-01-01' + (i / 4) * interval '1 millisecond'
       FROM generate_series(0, $3::int - 1) AS i`,
      [tenant, conv, n],
    );
    const succeeded = n - n / 10;
    const stateFile = path.join(dir, `state-${round}.json`);
    const args = [db.url, tenant, stateFile, '100', '5', String(mode)];

    const killed = await runChild(args, 4 + round * 3);
    expect(killed.signal).toBe('SIGKILL');
    const afterKill = (await db.pool.query('SELECT count(*)::int AS n FROM coverage_decision WHERE tenant_id = $1', [tenant])).rows[0].n as number;
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(succeeded - 1);
    const checkpoint = JSON.parse(readFileSync(stateFile, 'utf8')) as BackfillState;
    expect(checkpoint.done).toBe(false);

    const restarted = await runChild(args);
    expect(restarted.code).toBe(0);
    const final = JSON.parse(readFileSync(stateFile, 'utf8')) as BackfillState;
    expect(restarted.stdout).toMatch(/^done /m);

    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*)::int FROM coverage_decision WHERE tenant_id = $1) AS decisions,
              (SELECT count(DISTINCT session_id)::int FROM coverage_decision WHERE tenant_id = $1) AS distinct_sessions,
              (SELECT count(*)::int FROM diagnosis_session s WHERE s.tenant_id = $1 AND s.status IN ('SUCCESS', 'BAD_CASE')
                 AND NOT EXISTS (SELECT 1 FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id)) AS undecided,
              (SELECT count(*)::int FROM coverage_decision d JOIN diagnosis_session s ON s.tenant_id = d.tenant_id AND s.id = d.session_id WHERE d.tenant_id = $1 AND s.status = 'FAILED') AS failed_decided`,
      [tenant],
    );
    expect(rows[0]).toEqual({ decisions: succeeded - 1, distinct_sessions: succeeded - 1, undecided: 1, failed_decided: 0 });
    // The restart continued from the checkpoint instead of starting over.
    expect(final.batches).toBeGreaterThan(checkpoint.batches);
    expect(final.rejected).toBeGreaterThanOrEqual(1);
    expect(final.rejectedSamples.map((r) => r.code)).toContain('MALFORMED_REFERENCE');
  }, 120_000);
});
