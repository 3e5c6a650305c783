/**
 * Feedback benchmark (issue 5): `POST /api/feedback` against the real API process on a real
 * PostgreSQL, 64 concurrent connections over 10,000 distinct sessions (each posted once: even
 * sessions `useful`, odd `not_useful`), then a second round repeating every post (idempotent path).
 * Afterwards the database is checked: exactly one active AUTO case per useful session, none for the
 * others, no duplicates, every session's status/feedback consistent.
 * Bar: >= 1,000 req/s and p99 <= 100 ms on the 2-core machine. Each round also reports the database
 * transactions committed per request (pg_stat_database.xact_commit; a post is 2 autocommit statements
 * when it changes the state, 1 when it repeats — docs/hot-paths.md), next to the same-run baselines.
 *
 * Env: BENCH_SESSIONS (default 10000), BENCH_CONNECTIONS (default 64), BENCH_POOL (API DB_POOL_MAX,
 * default 20), BENCH_POSTGRES_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_KEEP=1 keeps the database.
 * Run: node --import ./bench/support/register.mjs bench/feedback/feedback.bench.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import pg from 'pg';
import { runMigrations } from '@arbiter/database';

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

const sessions = Number(process.env.BENCH_SESSIONS ?? 10_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const poolMax = Number(process.env.BENCH_POOL ?? 20);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;

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

async function startApi(databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', './bench/support/register.mjs', 'apps/api/src/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      SEED_DEMO: 'false',
      JOBS_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: String(poolMax),
      LLM_PROVIDER: 'none',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Arbiter is up')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`API exited (${code}) before it was up:\n${out}`)));
  });
  return child;
}

async function main(): Promise<void> {
  const dbName = `arbiter_bench_fb_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let api: ChildProcess | undefined;
  try {
    await runMigrations(url, path.resolve('migrations'));
    const port = await freePort();
    api = await startApi(url, port);
    const base = `http://127.0.0.1:${port}`;

    const created = await fetch(`${base}/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-feedback' }),
    });
    if (created.status !== 201) throw new Error(`tenant creation failed: ${created.status} ${await created.text()}`);
    const tenant = (await created.json()) as { id: string; apiKeys: { client: string } };

    // Seed the finished sessions directly (ingest is not what is measured).
    const conv = await pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenant.id]);
    const seeded = await pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, step_count, tool_call_count, finished_at)
       SELECT $1, $2, '机械臂报警 E' || g || ' 怎么处理？', '请检查伺服驱动器 ' || g || ' 的电源并重启控制柜。', 'SUCCESS', 2, 1, now()
         FROM generate_series(1, $3::int) AS g
       RETURNING id`,
      [tenant.id, conv.rows[0].id, sessions],
    );
    const ids = seeded.rows.map((r) => r.id);
    const valueOf = (i: number): 'useful' | 'not_useful' => (i % 2 === 0 ? 'useful' : 'not_useful');

    // Transactions the server committed (each autocommit statement is one): per request, a same-run view of the round trips.
    const commits = async (): Promise<number> =>
      Number((await pool.query<{ n: string }>(`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`)).rows[0]!.n);
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
      const commitsPerRequest = Math.round((((await commits()) - c0 - 1) / result.requests.total) * 100) / 100;
      return { ...result, label, commitsPerRequest };
    };

    // Short warm-up on separate sessions so JIT and pools are hot.
    const warm = await pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status) SELECT $1, $2, 'warm', 'up', 'SUCCESS' FROM generate_series(1, 500) RETURNING id`,
      [tenant.id, conv.rows[0].id],
    );
    let w = 0;
    await autocannon({
      url: base,
      connections,
      amount: warm.rows.length,
      requests: [
        {
          method: 'POST',
          path: '/api/feedback',
          headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKeys.client },
          setupRequest: (req: Record<string, unknown>) => ({
            ...req,
            body: JSON.stringify({ sessionId: warm.rows[w++ % warm.rows.length].id, feedback: 'useful' }),
          }),
        },
      ],
    });
    await pool.query(`DELETE FROM case_library WHERE query = 'warm'`);
    await pool.query(`DELETE FROM diagnosis_session WHERE query = 'warm'`);

    // Baselines on the same process and database, for ratios: a public DB ping and an authenticated read.
    const baseline = async (label: string, path: (i: number) => string, headers: Record<string, string>): Promise<AutocannonResult & { label: string }> => {
      let n = 0;
      const result = await timedAutocannon({
        url: base,
        connections,
        amount: 5000,
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
    const check = (
      await pool.query<{
        sessions: number;
        useful: number;
        bad: number;
        feedback_rows: number;
        active_cases: number;
        case_rows: number;
        distinct_case_sessions: number;
        inconsistent: number;
      }>(
        `SELECT
           (SELECT count(*)::int FROM diagnosis_session WHERE tenant_id = $1) AS sessions,
           (SELECT count(*)::int FROM diagnosis_session WHERE tenant_id = $1 AND feedback = 'useful' AND status = 'SUCCESS') AS useful,
           (SELECT count(*)::int FROM diagnosis_session WHERE tenant_id = $1 AND feedback = 'not_useful' AND status = 'BAD_CASE') AS bad,
           (SELECT count(*)::int FROM session_feedback WHERE tenant_id = $1) AS feedback_rows,
           (SELECT count(*)::int FROM case_library WHERE tenant_id = $1 AND retracted_at IS NULL) AS active_cases,
           (SELECT count(*)::int FROM case_library WHERE tenant_id = $1) AS case_rows,
           (SELECT count(DISTINCT session_id)::int FROM case_library WHERE tenant_id = $1) AS distinct_case_sessions,
           (SELECT count(*)::int FROM diagnosis_session s
              LEFT JOIN case_library c ON c.session_id = s.id AND c.retracted_at IS NULL
              LEFT JOIN session_feedback f ON f.session_id = s.id
             WHERE s.tenant_id = $1 AND (
               f.feedback IS DISTINCT FROM s.feedback
               OR (s.feedback = 'useful' AND (c.id IS NULL OR c.answer IS DISTINCT FROM s.answer))
               OR (s.feedback = 'not_useful' AND c.id IS NOT NULL))) AS inconsistent`,
        [tenant.id],
      )
    ).rows[0];
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
      database: 'postgresql',
      sessions,
      connections,
      apiPoolMax: poolMax,
      rounds: [summarize(first), summarize(repeat)],
      baselines: [summarize(health), summarize(read)],
      bar: { minRps: 1000, maxP99Ms: 100 },
      databaseCheck: { ...check, expectedUseful, ok: dbOk },
    };
    const pass = dbOk && report.rounds.every((r) => r.non2xx === 0 && r.errors === 0 && r.throughputRps >= 1000 && r.latencyMs.p99 <= 100);
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
    console.log(`${pass ? 'PASS' : 'FAIL'} (bar: >= 1000 req/s, p99 <= 100 ms, zero lost/duplicated cases) → ${file}`);
    process.exitCode = pass ? 0 : 1;
  } finally {
    api?.kill('SIGTERM');
    await pool.end();
    if (process.env.BENCH_KEEP) {
      console.error(`kept database ${dbName}`);
    } else {
      const drop = new pg.Client({ connectionString: adminUrl });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await drop.end();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
