/**
 * Coverage backfill benchmark (issue 6): seeds N sessions, then times the real backfill
 * (`runCoverageBackfill` + `CoverageRepository`: keyset batches, evaluator v1, one INSERT per batch)
 * and samples the process's peak RSS. Env:
 *   BENCH_DB=postgres|pglite (default postgres), BENCH_SESSIONS (default 1,000,000 / 100,000 on pglite),
 *   BENCH_BATCH (default 5000), BENCH_POSTGRES_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Run: npm run bench:coverage   (BENCH_DB=pglite npm run bench:coverage)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pgAsDataSource } from '../support/pg-data-source.js';
import { asTenantId } from '@arbiter/common';
import { CoverageEvaluatorV1, CoverageRepository, runCoverageBackfill, type BackfillStorage } from '@arbiter/coverage';
import { runMigrations, startEmbeddedPostgres } from '@arbiter/database';

const kind = (process.env.BENCH_DB ?? 'postgres') as 'postgres' | 'pglite';
const total = Number(process.env.BENCH_SESSIONS ?? (kind === 'postgres' ? 1_000_000 : 100_000));
const batchSize = Number(process.env.BENCH_BATCH ?? 5000);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const migrationsDir = path.resolve('migrations');

interface Target {
  url: string;
  close(): Promise<void>;
}

async function createTarget(): Promise<Target> {
  if (kind === 'postgres') {
    const name = `arbiter_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    return {
      url: u.toString(),
      close: async () => {
        if (process.env.BENCH_KEEP) return console.error(`kept database ${name}`);
        const drop = new pg.Client({ connectionString: adminUrl });
        await drop.connect();
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await drop.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-'));
  const embedded = await startEmbeddedPostgres(dir, 8);
  return {
    url: embedded.url,
    close: async () => {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Mix: 10% FAILED, 5% BAD_CASE; 60% with references; 10% images; 70% searched; no-answer phrases; a few malformed scores. */
const SEED_SQL = `
INSERT INTO diagnosis_session (tenant_id, conversation_id, channel, query, answer, status, source_references, media, knowledge_searched, created_at)
SELECT $1, $2,
  (ARRAY['web', 'api', 'wechat'])[1 + i % 3],
  '机械臂 X' || (i % 5000) || ' 如何重置？',
  CASE WHEN i % 20 = 0 THEN '抱歉，未找到相关资料' WHEN i % 33 = 0 THEN '未检索到相关说明，建议联系技术支持' ELSE '请按住复位键三秒，然后重新上电。' END,
  CASE WHEN i % 10 = 9 THEN 'FAILED' WHEN i % 20 = 7 THEN 'BAD_CASE' ELSE 'SUCCESS' END,
  CASE WHEN i % 100000 = 12345 THEN '[{"score": "high"}]'::jsonb
       WHEN i % 5 < 3 THEN jsonb_build_array(jsonb_build_object('filePath', 'manuals/' || (i % 97) || '.md', 'title', 'Manual', 'score', (i % 1000) / 1000.0),
                                             jsonb_build_object('filePath', 'faq.md', 'score', 0.3))
       ELSE '[]'::jsonb END,
  CASE WHEN i % 10 = 3 THEN '[{"type": "image", "url": "https://cdn.example.com/a.png"}]'::jsonb ELSE '[]'::jsonb END,
  i % 10 < 7,
  timestamptz '2025-01-01' + (i / 2) * interval '1 second'
FROM generate_series($3::int, $4::int) AS i`;

async function main(): Promise<void> {
  const target = await createTarget();
  const pool = new pg.Pool({ connectionString: target.url, max: 3 });
  try {
    await runMigrations(target.url, migrationsDir);
    const tenant = asTenantId((await pool.query<{ id: string }>(`INSERT INTO tenant (name) VALUES ('bench') RETURNING id`)).rows[0]!.id);
    const conv = (await pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [tenant])).rows[0]!.id;
    let t = performance.now();
    for (let start = 0; start < total; start += 100_000) {
      await pool.query(SEED_SQL, [tenant, conv, start, Math.min(start + 100_000, total) - 1]);
    }
    await pool.query('ANALYZE');
    const seedSeconds = (performance.now() - t) / 1000;
    const succeeded = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM diagnosis_session WHERE status IN ('SUCCESS', 'BAD_CASE')`)).rows[0]!.n;
    console.error(`seeded ${total} sessions (${succeeded} succeeded) in ${seedSeconds.toFixed(1)} s on ${kind}`);

    // The repository only needs query() and transaction(); a pg pool stands in for the TypeORM DataSource.
    const executor = pgAsDataSource(pool);
    const repository = new CoverageRepository(executor);
    // Time spent in each storage call (reads overlap the writes: the next page is prefetched).
    const spent = { readMs: 0, writeMs: 0 };
    const timed: BackfillStorage = {
      nextUndecided: async (...a) => {
        const s0 = performance.now();
        try {
          return await repository.nextUndecided(...a);
        } finally {
          spent.readMs += performance.now() - s0;
        }
      },
      insertDecisions: async (...a) => {
        const s0 = performance.now();
        try {
          return await repository.insertDecisions(...a);
        } finally {
          spent.writeMs += performance.now() - s0;
        }
      },
    };
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    t = performance.now();
    const state = await runCoverageBackfill(timed, new CoverageEvaluatorV1(), tenant, { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize }, null);
    const seconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);

    const stored = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM coverage_decision')).rows[0]!.n;
    if (stored !== state.decided || state.decided + state.rejected !== succeeded) {
      throw new Error(`mismatch: stored ${stored}, decided ${state.decided}, rejected ${state.rejected}, succeeded ${succeeded}`);
    }
    t = performance.now();
    const rerun = await runCoverageBackfill(repository, new CoverageEvaluatorV1(), tenant, { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize }, null);
    const rerunSeconds = (performance.now() - t) / 1000;

    const result = {
      database: kind,
      sessions: total,
      succeededSessions: succeeded,
      decided: state.decided,
      rejectedMalformed: state.rejected,
      batchSize,
      batches: state.batches,
      seconds: Number(seconds.toFixed(2)),
      readSeconds: Number((spent.readMs / 1000).toFixed(2)),
      writeSeconds: Number((spent.writeMs / 1000).toFixed(2)),
      succeededSessionsPerSecond: Math.round(state.scanned / seconds),
      allSessionsPerSecond: Math.round(total / seconds),
      peakRssMB: Math.round(peakRss / 2 ** 20),
      rssBeforeMB: Math.round(rssBefore / 2 ** 20),
      maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      idempotentRerunSeconds: Number(rerunSeconds.toFixed(2)),
      idempotentRerunDecided: rerun.decided,
      node: process.version,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await pool.end();
    await target.close();
  }
}

await main();
