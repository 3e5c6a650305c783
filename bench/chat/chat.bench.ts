/**
 * Chat pipeline benchmark (issue 7): offline `POST /ai/chat` (no LLM) on real PostgreSQL or the embedded
 * database with the demo tenant (demo intents + demo knowledge), C keep-alive connections for S seconds,
 * against the baselines of a bare authenticated route doing one INSERT (`POST /bench/insert`) and of
 * `GET /health` on the same database in the same run. Reports throughput, p50/p95/p99 (exact, from every
 * response time), errors, and the ratios. Bars: p95 <= 60 ms, zero errors, chat throughput >= 25% of the
 * INSERT baseline (issue 7); issue 27's bars are printed beside them (embedded: >= 250 turns/s, p95 <= 100 ms,
 * >= 3.5 % of `/health`; PostgreSQL: >= 400 turns/s).
 *
 * The API runs in a child process (the same module graph and HTTP setup as `createApp`, see server.ts),
 * so the load generator does not share its event loop.
 * Env: BENCH_DB (postgres | pglite, default postgres), BENCH_CONNECTIONS (16), BENCH_SECONDS (60),
 *      BENCH_WARMUP_SECONDS (10), BENCH_DB_POOL_MAX (20),
 *      BENCH_POSTGRES_URL (admin URL, default TEST_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/postgres),
 *      BENCH_CPU_PROF_DIR (write a V8 CPU profile of the API process there),
 *      BENCH_SYNCHRONOUS_COMMIT (diagnostic: e.g. `off` for the API's connections, both routes).
 * Run: npm run bench:chat
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { dropDatabase, http, withDatabase } from '../support/bench-http.js';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { DEMO_INTENT_RULES } from '@arbiter/intent';

/** The slice of autocannon's API used here (the package ships no types). */
interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
}
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN = 'bench-admin-token-0123456789abcdef';
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
const poolMax = Number(process.env.BENCH_DB_POOL_MAX ?? 20);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const benchDb = process.env.BENCH_DB ?? 'postgres';
if (benchDb !== 'postgres' && benchDb !== 'pglite') throw new Error(`BENCH_DB must be postgres or pglite, not ${benchDb}`);
const BARS = { p95Ms: 60, errors: 0, ratio: 0.25 };
/** Issue 27's bars for this path: embedded ≥ 250 turns/s, p95 ≤ 100 ms, ≥ 3.5 % of `/health` in the same run; PostgreSQL ≥ 400 turns/s. */
const SPEED_BARS = benchDb === 'pglite' ? { turnsPerSecond: 250, p95Ms: 100, healthShare: 0.035 } : { turnsPerSecond: 400, p95Ms: null, healthShare: null };

/** A realistic mix: grounded answers, clarifications, not-found exits, rule answers, hand-offs (Chinese and English). */
const MESSAGES = [
  '机械臂报警 E201 怎么处理？',
  '示教器黑屏怎么办',
  '控制柜连不上电脑',
  'How do I upgrade the firmware?',
  '怎么申请退款',
  '订单什么时候发货',
  'E310 碰撞报警误报',
  '固件升级失败怎么恢复',
  "I can't connect to the controller with RoboStudio",
  '你们支持开发票吗',
  'What is the weather in Paris tomorrow?',
  '你好',
  '转人工',
  'warranty for the teach pendant',
  'E202 编码器报警',
  '第三轴减速机多久换一次油',
];

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

const serverLog: string[] = [];

/** `database`: a PostgreSQL URL, or the embedded database's data directory. */
async function startServer(database: { url: string } | { dataDir: string }, port: number): Promise<ChildProcess> {
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', './bench/support/register.mjs', 'bench/support/bench-server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      ...('url' in database ? { DATABASE_URL: database.url } : { DATABASE_URL: '', DATA_DIR: database.dataDir }),
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: ADMIN,
      LLM_PROVIDER: 'none',
      EMBEDDING_PROVIDER: 'local',
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      SWAGGER_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: String(poolMax),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 180 s\n${stderr}`)), 180_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}\n${stderr}`));
    });
  });
  // Keep the server's warnings/errors (LOG_LEVEL=warn) for the report.
  child.stdout!.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line.trim() && serverLog.length < 200) serverLog.push(line.slice(0, 500));
  });
  return child;
}

interface RunResult {
  route: string;
  connections: number;
  seconds: number;
  requests: number;
  throughputRps: number;
  latencyMs: { p50: number; p95: number; p99: number; mean: number; max: number };
  errors: { total: number; non2xx: number; connectionErrors: number; timeouts: number };
  statusCodes: Record<string, number>;
}

async function run(
  base: string,
  route: string,
  key: string,
  bodies: readonly unknown[] | null,
  duration: number,
  record: boolean,
  method: 'GET' | 'POST' = 'POST',
): Promise<RunResult> {
  const times: number[] = [];
  const statusCodes: Record<string, number> = {};
  let i = 0;
  const instance = autocannon({
    url: base,
    connections,
    duration,
    timeout: 10,
    requests: [
      {
        method,
        path: route,
        headers: method === 'GET' ? { 'x-api-key': key } : { 'content-type': 'application/json', 'x-api-key': key },
        ...(method === 'GET'
          ? {}
          : bodies
            ? { setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify(bodies[i++ % bodies.length]) }) }
            : { body: '{}' }),
      },
    ],
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (!record) return;
    times.push(responseTime);
    statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
  });
  const result = await instance;
  times.sort((a, b) => a - b);
  const r3 = (n: number) => Math.round(n * 100) / 100;
  return {
    route,
    connections,
    seconds: duration,
    requests: times.length,
    throughputRps: r3(times.length / duration),
    latencyMs: {
      p50: r3(percentile(times, 50)),
      p95: r3(percentile(times, 95)),
      p99: r3(percentile(times, 99)),
      mean: r3(times.reduce((s, x) => s + x, 0) / Math.max(1, times.length)),
      max: r3(times[times.length - 1] ?? NaN),
    },
    errors: { total: result.errors + result.timeouts + result.non2xx, non2xx: result.non2xx, connectionErrors: result.errors, timeouts: result.timeouts },
    statusCodes,
  };
}

async function main(): Promise<void> {
  const dbName = `arbiter_bench_chat_${Date.now()}`;
  const dataDir = benchDb === 'pglite' ? mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-chat-')) : null;
  if (!dataDir) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
  }
  // Diagnostic only: BENCH_SYNCHRONOUS_COMMIT=off shows how much of the time is commit fsyncs (applies to both routes).
  const syncCommit = process.env.BENCH_SYNCHRONOUS_COMMIT;
  const databaseUrl = withDatabase(adminUrl, dbName) + (syncCommit ? `?options=${encodeURIComponent(`-c synchronous_commit=${syncCommit}`)}` : '');
  const database = dataDir ? { dataDir } : { url: databaseUrl };
  const port = 40_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  try {
    const bootStarted = Date.now();
    server = await startServer(database, port);
    process.stdout.write(`server up in ${Date.now() - bootStarted} ms (${dataDir ? `embedded, ${dataDir}` : `PostgreSQL ${dbName}`}, pool ${poolMax})\n`);

    // The demo tenant: demo intents (intent module's set) and demo knowledge (chat module's set).
    const tenant = await http<{ id: string; apiKeys: { client: string; operator: string } }>(
      base,
      'POST',
      '/admin/tenants',
      { authorization: `Bearer ${ADMIN}` },
      { name: 'demo' },
    );
    if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status}`);
    const op = { 'x-api-key': tenant.json.apiKeys.operator };
    for (const rule of DEMO_INTENT_RULES) {
      const r = await http(base, 'POST', '/admin/intent-rules', op, rule);
      if (r.status !== 201) throw new Error(`intent rule: ${r.status} ${JSON.stringify(r.json)}`);
    }
    const bulk = await http<{ summary: Record<string, number> }>(base, 'POST', '/admin/knowledge/documents/bulk', op, DEMO_KNOWLEDGE);
    if (bulk.status !== 200 || bulk.json.summary.failed) throw new Error(`knowledge: ${bulk.status} ${JSON.stringify(bulk.json)}`);
    const client = tenant.json.apiKeys.client;

    // Sanity: every message answers 200, and the mix covers the branches.
    const branches: Record<string, number> = {};
    for (const message of MESSAGES) {
      const r = await http<{ needClarify: boolean; shouldTransfer: boolean; references: unknown[]; reply: string }>(
        base,
        'POST',
        '/ai/chat',
        { 'x-api-key': client },
        { message },
      );
      if (r.status !== 200) throw new Error(`chat "${message}": ${r.status} ${JSON.stringify(r.json)}`);
      const kind = r.json.needClarify
        ? 'clarify'
        : r.json.references.length
          ? 'grounded'
          : /未找到/.test(r.json.reply)
            ? 'not_found'
            : r.json.shouldTransfer
              ? 'transfer'
              : 'other';
      branches[kind] = (branches[kind] ?? 0) + 1;
    }
    process.stdout.write(`message mix: ${JSON.stringify(branches)}\n`);

    const chatBodies = MESSAGES.map((message) => ({ message }));
    process.stdout.write(`warm-up ${warmupSeconds} s each …\n`);
    await run(base, '/ai/chat', client, chatBodies, warmupSeconds, false);
    await run(base, '/bench/insert', client, null, warmupSeconds, false);
    await run(base, '/health', client, null, warmupSeconds, false, 'GET');

    process.stdout.write(`POST /ai/chat: ${connections} connections, ${seconds} s …\n`);
    const chat = await run(base, '/ai/chat', client, chatBodies, seconds, true);
    process.stdout.write(`POST /bench/insert (baseline: auth + one INSERT): ${connections} connections, ${seconds} s …\n`);
    const insert = await run(base, '/bench/insert', client, null, seconds, true);
    process.stdout.write(`GET /health (baseline): ${connections} connections, ${seconds} s …\n`);
    const health = await run(base, '/health', client, null, seconds, true, 'GET');

    // What the chat runs produced: every turn should be a SUCCESS session (a FAILED one still answers 200).
    const read = await http<{ statuses: Record<string, number>; failures: { error: string; n: number }[] }>(base, 'GET', '/bench/session-statuses', {
      'x-api-key': client,
    });
    if (read.status !== 200) throw new Error(`session statuses: ${read.status} ${JSON.stringify(read.json)}`);
    const { statuses, failures } = read.json;
    process.stdout.write(`sessions by status: ${JSON.stringify(statuses)}${failures.length ? `\nfailures: ${JSON.stringify(failures)}` : ''}\n`);
    if (serverLog.length)
      process.stdout.write(`server warnings/errors (first ${Math.min(5, serverLog.length)} of ${serverLog.length}):\n${serverLog.slice(0, 5).join('\n')}\n`);

    const ratio = Math.round((chat.throughputRps / insert.throughputRps) * 1000) / 1000;
    const healthShare = Math.round((chat.throughputRps / health.throughputRps) * 10_000) / 10_000;
    const speed = {
      turnsPerSecond: { value: chat.throughputRps, bar: `>= ${SPEED_BARS.turnsPerSecond}`, pass: chat.throughputRps >= SPEED_BARS.turnsPerSecond },
      ...(SPEED_BARS.p95Ms !== null
        ? { p95: { value: chat.latencyMs.p95, bar: `<= ${SPEED_BARS.p95Ms} ms`, pass: chat.latencyMs.p95 <= SPEED_BARS.p95Ms } }
        : {}),
      ...(SPEED_BARS.healthShare !== null
        ? { healthShare: { value: healthShare, bar: `>= ${SPEED_BARS.healthShare}`, pass: healthShare >= SPEED_BARS.healthShare } }
        : {}),
    };
    const verdict = {
      p95: { value: chat.latencyMs.p95, bar: `<= ${BARS.p95Ms} ms`, pass: chat.latencyMs.p95 <= BARS.p95Ms },
      errors: {
        value: chat.errors.total + (statuses.FAILED ?? 0),
        bar: '0 (HTTP errors + FAILED sessions)',
        pass: chat.errors.total + (statuses.FAILED ?? 0) === BARS.errors,
      },
      ratio: { value: ratio, bar: `>= ${BARS.ratio}`, pass: ratio >= BARS.ratio },
    };
    const out = {
      bench: 'chat',
      at: new Date().toISOString(),
      database: dataDir ? 'embedded' : 'postgresql',
      synchronousCommit: syncCommit ?? 'server default',
      node: process.version,
      messages: MESSAGES.length,
      messageMix: branches,
      sessionsByStatus: statuses,
      failures,
      chat,
      baseline: insert,
      health,
      ratio,
      healthShare,
      verdict,
      issue27: speed,
    };
    const dir = path.join(root, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `chat-${out.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    const row = (r: RunResult) =>
      `${r.route.padEnd(14)} ${String(r.throughputRps).padStart(9)} req/s  p50 ${r.latencyMs.p50} ms  p95 ${r.latencyMs.p95} ms  p99 ${r.latencyMs.p99} ms  errors ${r.errors.total}  (${r.requests} requests)`;
    process.stdout.write(
      [
        '',
        row(chat),
        row(insert),
        row(health),
        `ratio chat/baseline: ${ratio}; chat / GET /health: ${healthShare}`,
        `bars: p95 ${verdict.p95.value} ms ${verdict.p95.bar} → ${verdict.p95.pass ? 'PASS' : 'FAIL'}; errors ${verdict.errors.value} → ${verdict.errors.pass ? 'PASS' : 'FAIL'}; ratio ${ratio} ${verdict.ratio.bar} → ${verdict.ratio.pass ? 'PASS' : 'FAIL'}`,
        `issue 27 bars (${dataDir ? 'embedded' : 'PostgreSQL'}): ${Object.entries(speed)
          .map(([name, v]) => `${name} ${v.value} ${v.bar} → ${v.pass ? 'PASS' : 'FAIL'}`)
          .join('; ')}`,
        `written to ${path.relative(root, file)}`,
        '',
      ].join('\n'),
    );
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    else await dropDatabase(adminUrl, dbName);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
