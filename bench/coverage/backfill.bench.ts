/**
 * Coverage backfill benchmark (issues 6 and 13): seeds N sessions, then times the real v1 backfill the
 * job runs — set-based (`runSetBasedCoverageBackfill` + `CoverageBackfillRepository`: one statement per
 * keyset page reads, decides and inserts in the database) — and samples the process's peak RSS
 * (bars: >= 20,000 sessions/s, RSS < 300 MB on PostgreSQL). Same-run baseline: the decisions of the
 * first BENCH_BASELINE_SESSIONS succeeded sessions are set aside and deleted, the row-by-row backfill
 * (`runCoverageBackfill` + `CoverageBackfillRepository`) decides them again, timed, and both sets of decisions
 * must be identical. Env:
 *   BENCH_DB=postgres|pglite (default postgres), BENCH_SESSIONS (default 1,000,000 / 100,000 on pglite),
 *   BENCH_BATCH (default 5000), BENCH_BASELINE_SESSIONS (default 100,000),
 *   BENCH_POSTGRES_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Run: npm run bench:coverage   (BENCH_DB=pglite npm run bench:coverage)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pgAsDatabase } from '../support/pg-data-source.js';
import { asTenantId } from '@arbiter/common';
import {
  CoverageBackfillRepository,
  CoverageEvaluatorV1,
  CoverageRepository,
  runCoverageBackfill,
  runSetBasedCoverageBackfill,
  type BackfillStorage,
  type SetBasedBackfillStorage,
} from '@arbiter/coverage';
import { runMigrations, startEmbeddedPostgres } from '@arbiter/database';

const kind = (process.env.BENCH_DB ?? 'postgres') as 'postgres' | 'pglite';
const total = Number(process.env.BENCH_SESSIONS ?? (kind === 'postgres' ? 1_000_000 : 100_000));
const batchSize = Number(process.env.BENCH_BATCH ?? 5000);
const baselineSessions = Number(process.env.BENCH_BASELINE_SESSIONS ?? 100_000);
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
    // VACUUM too: hint bits and the visibility map set before either backfill reads (the first reader of
    // freshly inserted rows would otherwise pay for writing them).
    await pool.query('VACUUM (ANALYZE)');
    const seedSeconds = (performance.now() - t) / 1000;
    const succeeded = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM diagnosis_session WHERE status IN ('SUCCESS', 'BAD_CASE')`)).rows[0]!.n;
    console.error(`seeded ${total} sessions (${succeeded} succeeded) in ${seedSeconds.toFixed(1)} s on ${kind}`);

    // The repositories run on the typed data layer over this pg pool (a stand-in for the TypeORM DataSource's).
    const database = pgAsDatabase(pool);
    const repository = new CoverageRepository(database);
    const backfillRepository = new CoverageBackfillRepository(database, repository);
    const evaluator = new CoverageEvaluatorV1();
    const all = { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize };
    // Where the time goes: the page statements (read + decide + insert in SQL) and the TypeScript remainder's inserts.
    const spent = { pageMs: 0, insertMs: 0, leftToTypeScript: 0 };
    const setBased: SetBasedBackfillStorage = {
      decideV1Page: async (...a) => {
        const s0 = performance.now();
        try {
          const page = await backfillRepository.decideV1Page(...a);
          spent.leftToTypeScript += page.rest.length;
          return page;
        } finally {
          spent.pageMs += performance.now() - s0;
        }
      },
      insertDecisions: async (...a) => {
        const s0 = performance.now();
        try {
          return await repository.insertDecisions(...a);
        } finally {
          spent.insertMs += performance.now() - s0;
        }
      },
    };
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    t = performance.now();
    const state = await runSetBasedCoverageBackfill(setBased, evaluator, tenant, all, null);
    const seconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);

    const stored = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM coverage_decision')).rows[0]!.n;
    if (stored !== state.decided || state.decided + state.rejected !== succeeded) {
      throw new Error(`mismatch: stored ${stored}, decided ${state.decided}, rejected ${state.rejected}, succeeded ${succeeded}`);
    }
    t = performance.now();
    const rerun = await runSetBasedCoverageBackfill(setBased, evaluator, tenant, all, null);
    const rerunSeconds = (performance.now() - t) / 1000;

    // Same-run baseline: the first K succeeded sessions' decisions set aside, deleted, and decided again row by row.
    const k = Math.min(baselineSessions, succeeded - 1);
    const bound = (
      await pool.query<{ ts: string }>(
        `SELECT created_at::text AS ts FROM diagnosis_session WHERE tenant_id = $1 AND status IN ('SUCCESS', 'BAD_CASE') ORDER BY created_at, id OFFSET $2 LIMIT 1`,
        [tenant, k],
      )
    ).rows[0]!.ts;
    await pool.query(`CREATE TABLE bench_set_based_decisions AS SELECT * FROM coverage_decision WHERE tenant_id = $1 AND session_created_at < $2::timestamptz`, [tenant, bound]);
    await pool.query(`DELETE FROM coverage_decision WHERE tenant_id = $1 AND session_created_at < $2::timestamptz`, [tenant, bound]);
    const spentRows = { readMs: 0, writeMs: 0 };
    const rowByRow: BackfillStorage = {
      nextUndecided: async (...a) => {
        const s0 = performance.now();
        try {
          return await backfillRepository.nextUndecided(...a);
        } finally {
          spentRows.readMs += performance.now() - s0;
        }
      },
      insertDecisions: async (...a) => {
        const s0 = performance.now();
        try {
          return await repository.insertDecisions(...a);
        } finally {
          spentRows.writeMs += performance.now() - s0;
        }
      },
    };
    t = performance.now();
    const baseline = await runCoverageBackfill(rowByRow, evaluator, tenant, { ...all, toTs: bound }, null);
    const baselineSeconds = (performance.now() - t) / 1000;
    const compared = (
      await pool.query<{ set_based: number; row_by_row: number; different: number }>(
        `SELECT (SELECT count(*)::int FROM bench_set_based_decisions) AS set_based,
                (SELECT count(*)::int FROM coverage_decision WHERE tenant_id = $1 AND session_created_at < $2::timestamptz) AS row_by_row,
                (SELECT count(*)::int FROM bench_set_based_decisions a
                   FULL JOIN (SELECT * FROM coverage_decision WHERE tenant_id = $1 AND session_created_at < $2::timestamptz) b
                     ON b.session_id = a.session_id AND b.evaluator_version = a.evaluator_version
                  WHERE a.session_id IS NULL OR b.session_id IS NULL
                     OR (a.verdict, a.reason_code, a.reference_count, a.top_score, a.gap_key, a.channel, a.session_created_at)
                        IS DISTINCT FROM (b.verdict, b.reason_code, b.reference_count, b.top_score, b.gap_key, b.channel, b.session_created_at)) AS different`,
        [tenant, bound],
      )
    ).rows[0]!;
    await pool.query('DROP TABLE bench_set_based_decisions');

    const rate = Math.round(state.scanned / seconds);
    const baselineRate = Math.round(baseline.scanned / baselineSeconds);
    const peakRssMB = Math.round(peakRss / 2 ** 20);
    const result = {
      database: kind,
      sessions: total,
      succeededSessions: succeeded,
      decided: state.decided,
      rejectedMalformed: state.rejected,
      decidedInTypeScript: spent.leftToTypeScript,
      batchSize,
      batches: state.batches,
      seconds: Number(seconds.toFixed(2)),
      pageStatementSeconds: Number((spent.pageMs / 1000).toFixed(2)),
      typeScriptInsertSeconds: Number((spent.insertMs / 1000).toFixed(2)),
      succeededSessionsPerSecond: rate,
      allSessionsPerSecond: Math.round(total / seconds),
      peakRssMB,
      rssBeforeMB: Math.round(rssBefore / 2 ** 20),
      maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      idempotentRerunSeconds: Number(rerunSeconds.toFixed(2)),
      idempotentRerunDecided: rerun.decided,
      baseline: {
        what: 'row-by-row backfill (read page, evaluate in TypeScript, insert) of the first sessions, same database, same run',
        sessions: baseline.scanned,
        seconds: Number(baselineSeconds.toFixed(2)),
        readSeconds: Number((spentRows.readMs / 1000).toFixed(2)),
        writeSeconds: Number((spentRows.writeMs / 1000).toFixed(2)),
        succeededSessionsPerSecond: baselineRate,
        speedup: Number((rate / baselineRate).toFixed(2)),
      },
      decisionsIdentical: { ...compared, ok: compared.different === 0 && compared.set_based === compared.row_by_row },
      bars: { minSessionsPerSecond: 20_000, maxRssMB: 300 },
      pass: kind === 'postgres' ? rate >= 20_000 && peakRssMB < 300 && compared.different === 0 : null,
      node: process.version,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await pool.end();
    await target.close();
  }
}

await main();
