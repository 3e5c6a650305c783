/**
 * Feedback benchmark (issues 5 and 27): `POST /api/feedback` against the real API process (the bench server:
 * the API plus bench-only seeding and check routes), over 10,000 distinct finished sessions (each posted once: even
 * sessions `useful`, odd `not_useful`), then a second round repeating every post (idempotent path).
 * Afterwards the database is checked through the API's process: exactly one active AUTO case per useful session,
 * none for the others, no duplicates, every session's status/feedback consistent.
 * Bars: PostgreSQL (`BENCH_DB=postgres`, default), 64 connections: >= 1,000 req/s and p99 <= 100 ms; embedded
 * (`BENCH_DB=pglite`, PGlite in a temporary DATA_DIR inside the API process), 16 connections: the first post's
 * throughput >= 10 % of the same run's `GET /health`. On PostgreSQL each round also reports the database
 * transactions committed per request (pg_stat_database.xact_commit; a post is 2 autocommit statements when it changes
 * the state, 1 when it repeats — docs/hot-paths.md), next to the same-run baselines.
 *
 * Env: BENCH_DB (postgres | pglite), BENCH_SESSIONS (default 10000), BENCH_CONNECTIONS (64 on PostgreSQL, 16
 * embedded), BENCH_BASELINE_REQUESTS (20000 per baseline), BENCH_POOL (API DB_POOL_MAX, default 20), BENCH_POSTGRES_URL (admin URL, default
 * postgres://postgres@127.0.0.1:5432/postgres), BENCH_KEEP=1 keeps the database, BENCH_QUIET=1 says the machine was idle.
 * Run: npm run bench:feedback
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import pg from 'pg';
import { startProcess } from '../support/api-processes.js';
import { dropDatabase, http, withDatabase } from '../support/bench-http.js';
import { BENCH_ADMIN_TOKEN } from '../support/in-process-api.js';

interface AutocannonResult {
  requests: { average: number; total: number; sent: number };
  latency: { p50: number; p90: number; p99: number; max: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds from the start to the last response (see {@link timedAutocannon}). */
  duration: number;
  /** autocannon's own figure, which ends at its next one-second sample. */
  autocannonDuration?: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * Runs autocannon and times the run from its start to its last response: autocannon's own `duration` ends at its
 * next one-second sample after the last response, which overstated a 10 s round by up to 1 s (10 %).
 */
async function timedAutocannon(opts: Record<string, unknown> & { requests: Record<string, unknown>[] }): Promise<AutocannonResult> {
  const started = performance.now();
  let last = started;
  const requests = opts.requests.map((r) => ({ ...r, onResponse: () => (last = performance.now()) }));
  const result = await autocannon({ ...opts, requests });
  return { ...result, autocannonDuration: result.duration, duration: Math.round(last - started) / 1000 };
}

const benchDb = process.env.BENCH_DB ?? 'postgres';
if (benchDb !== 'postgres' && benchDb !== 'pglite') throw new Error(`BENCH_DB must be postgres or pglite, not ${benchDb}`);
const embedded = benchDb === 'pglite';
const sessions = Number(process.env.BENCH_SESSIONS ?? 10_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? (embedded ? 16 : 64));
const poolMax = Number(process.env.BENCH_POOL ?? 20);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const quiet = process.env.BENCH_QUIET === '1';
/** Requests of each baseline: long enough that a fast `/health` runs for seconds, not a fraction of one. */
const baselineRequests = Number(process.env.BENCH_BASELINE_REQUESTS ?? 20_000);
/** Issue 27's embedded bar: the first post's throughput as a share of the same run's `GET /health`. */
const EMBEDDED_MIN_SHARE_OF_HEALTH = 0.1;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The bench server on PostgreSQL (`url`) or the embedded database (`dataDir`); jobs off: feedback is what is measured. */
function startApi(database: { url: string } | { dataDir: string }, port: number): Promise<ChildProcess> {
  return startProcess(
    ['bench/support/bench-server.ts'],
    {
      ...('url' in database ? { DATABASE_URL: database.url } : { DATABASE_URL: '', DATA_DIR: database.dataDir }),
      PORT: String(port),
      HOST: '127.0.0.1',
      JOBS_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: String(poolMax),
    },
    'READY',
  );
}

/** A bench route's JSON answer, failing the run on any other status than `expected`. */
async function benchRoute<T>(base: string, method: string, route: string, apiKey: string, expected: number, body?: unknown): Promise<T> {
  const res = await http<T>(base, method, route, { 'x-api-key': apiKey }, body);
  if (res.status !== expected) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

async function main(): Promise<void> {
  const dbName = `arbiter_bench_fb_${randomBytes(4).toString('hex')}`;
  const dataDir = embedded ? mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-feedback-')) : null;
  const url = withDatabase(adminUrl, dbName);
  if (!embedded) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
  }
  // PostgreSQL only: the commit counter beside the API (the embedded database lives inside the API's process).
  const pool = embedded ? null : new pg.Pool({ connectionString: url, max: 4 });
  let api: ChildProcess | undefined;
  try {
    const port = await freePort();
    api = await startApi(dataDir ? { dataDir } : { url }, port);
    const base = `http://127.0.0.1:${port}`;

    const created = await fetch(`${base}/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-feedback' }),
    });
    if (created.status !== 201) throw new Error(`tenant creation failed: ${created.status} ${await created.text()}`);
    const tenant = (await created.json()) as { id: string; apiKeys: { client: string } };
    const key = tenant.apiKeys.client;

    // Seed the finished sessions directly (ingest is not what is measured).
    const { ids } = await benchRoute<{ ids: string[] }>(base, 'POST', '/bench/finished-sessions', key, 201, { count: sessions });
    const valueOf = (i: number): 'useful' | 'not_useful' => (i % 2 === 0 ? 'useful' : 'not_useful');

    // Transactions the server committed (each autocommit statement is one): per request, a same-run view of the round trips.
    const commits = async (): Promise<number | null> =>
      pool
        ? Number((await pool.query<{ n: string }>(`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`)).rows[0]!.n)
        : null;
    const round = async (label: string): Promise<AutocannonResult & { label: string; commitsPerRequest?: number }> => {
      // pg_stat counters are flushed by each backend at most every second or so: wait for a settled reading.
      await new Promise((r) => setTimeout(r, 1500));
      const c0 = await commits();
      let next = 0;
      const result = await timedAutocannon({
        url: base,
        connections,
        amount: ids.length,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            path: '/api/feedback',
            headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKeys.client },
            setupRequest: (req: Record<string, unknown>) => {
              const i = next++ % ids.length;
              return { ...req, body: JSON.stringify({ sessionId: ids[i], feedback: valueOf(i) }) };
            },
          },
        ],
      });
      await new Promise((r) => setTimeout(r, 1500));
      // Minus this pool's own reading statement(s).
      const c1 = await commits();
      const commitsPerRequest = c0 === null || c1 === null ? undefined : Math.round(((c1 - c0 - 1) / result.requests.total) * 100) / 100;
      return { ...result, label, commitsPerRequest };
    };

    // Short warm-up on separate sessions so JIT and pools are hot.
    const { ids: warmIds } = await benchRoute<{ ids: string[] }>(base, 'POST', '/bench/finished-sessions', key, 201, { count: 500, query: 'warm' });
    let w = 0;
    await autocannon({
      url: base,
      connections,
      amount: warmIds.length,
      requests: [
        {
          method: 'POST',
          path: '/api/feedback',
          headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKeys.client },
          setupRequest: (req: Record<string, unknown>) => ({
            ...req,
            body: JSON.stringify({ sessionId: warmIds[w++ % warmIds.length], feedback: 'useful' }),
          }),
        },
      ],
    });
    await benchRoute(base, 'DELETE', '/bench/finished-sessions/warm', key, 200, {});

    // Baselines on the same process and database, for ratios: a public DB ping and an authenticated read.
    const baseline = async (label: string, path: (i: number) => string, headers: Record<string, string>): Promise<AutocannonResult & { label: string }> => {
      let n = 0;
      const result = await timedAutocannon({
        url: base,
        connections,
        amount: baselineRequests,
        requests: [{ method: 'GET', headers, setupRequest: (req: Record<string, unknown>) => ({ ...req, path: path(n++) }) }],
      });
      return { ...result, label };
    };
    const health = await baseline('baseline GET /health (DB ping)', () => '/health', {});
    const read = await baseline('baseline GET /api/sessions/:id (auth + read)', (i) => `/api/sessions/${ids[i % ids.length]}`, {
      'x-api-key': tenant.apiKeys.client,
    });

    const first = await round('first post per session (state change)');
    const repeat = await round('repeat of every post (idempotent)');

    // Database check: nothing lost, nothing duplicated, everything consistent.
    const check = await benchRoute<{
      sessions: number;
      useful: number;
      bad: number;
      feedback_rows: number;
      active_cases: number;
      case_rows: number;
      distinct_case_sessions: number;
      inconsistent: number;
    }>(base, 'GET', '/bench/feedback-check', key, 200);
    const expectedUseful = Math.ceil(sessions / 2);
    const dbOk =
      check.sessions === sessions &&
      check.useful === expectedUseful &&
      check.bad === sessions - expectedUseful &&
      check.feedback_rows === sessions &&
      check.active_cases === expectedUseful &&
      check.case_rows === check.distinct_case_sessions &&
      check.inconsistent === 0;

    const summarize = (r: AutocannonResult & { label: string; commitsPerRequest?: number }) => ({
      label: r.label,
      ...(r.commitsPerRequest !== undefined ? { databaseCommitsPerRequest: r.commitsPerRequest } : {}),
      requests: r.requests.total,
      durationS: r.duration,
      autocannonDurationS: r.autocannonDuration,
      throughputRps: Math.round((r.requests.total / r.duration) * 10) / 10,
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
    });
    const report = {
      benchmark: 'feedback',
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version },
      database: embedded ? 'pglite' : 'postgresql',
      quiet,
      sessions,
      connections,
      apiPoolMax: poolMax,
      rounds: [summarize(first), summarize(repeat)],
      baselines: [summarize(health), summarize(read)],
      bar: embedded ? { minShareOfHealth: EMBEDDED_MIN_SHARE_OF_HEALTH } : { minRps: 1000, maxP99Ms: 100 },
      firstPostShareOfHealth: Math.round((summarize(first).throughputRps / summarize(health).throughputRps) * 10_000) / 10_000,
      databaseCheck: { ...check, expectedUseful, ok: dbOk },
    };
    const clean = report.rounds.every((r) => r.non2xx === 0 && r.errors === 0);
    const barsMet = embedded
      ? report.firstPostShareOfHealth >= EMBEDDED_MIN_SHARE_OF_HEALTH
      : report.rounds.every((r) => r.throughputRps >= 1000 && r.latencyMs.p99 <= 100);
    const pass = dbOk && clean && barsMet;
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/feedback-${report.at.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, JSON.stringify({ ...report, pass }, null, 2));
    for (const r of [...report.baselines, ...report.rounds]) {
      const commitsNote = 'databaseCommitsPerRequest' in r ? `, ${r.databaseCommitsPerRequest} commits/request` : '';
      console.log(
        `${r.label}: ${r.requests} req in ${r.durationS}s (autocannon's figure ${r.autocannonDurationS}s) → ${r.throughputRps} req/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, non2xx ${r.non2xx}, errors ${r.errors}${commitsNote}`,
      );
    }
    console.log(`database check: ${JSON.stringify(report.databaseCheck)}`);
    const barText = embedded
      ? `first post ${(report.firstPostShareOfHealth * 100).toFixed(2)} % of GET /health same run (bar >= ${EMBEDDED_MIN_SHARE_OF_HEALTH * 100} %)`
      : 'bar: >= 1000 req/s, p99 <= 100 ms';
    console.log(
      `${pass ? 'PASS' : 'FAIL'} (${barText}, zero lost/duplicated cases; ${embedded ? 'embedded' : 'PostgreSQL'}, ${connections} connections, ${quiet ? 'quiet' : 'NOT QUIET'}) → ${file}`,
    );
    process.exitCode = pass ? 0 : 1;
  } finally {
    api?.kill('SIGTERM');
    await pool?.end();
    if (process.env.BENCH_KEEP) {
      console.error(`kept database ${dataDir ?? dbName}`);
    } else if (dataDir) {
      // The API's process holds the embedded database until it exits.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      rmSync(dataDir, { recursive: true, force: true });
    } else {
      await dropDatabase(adminUrl, dbName);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
