/**
 * HTTP benchmark of `POST /ai/intent/route` (issue 3, bar: p95 <= 25 ms at 32 concurrent connections,
 * embedded database, loopback). Loads CLINC150 through the real API (one rule per in-scope intent, its
 * training texts as semanticExamples: 150 intents / 15,000 examples) plus BENCH_RULES keyword/regex rules,
 * waits for the tenant classifier, then drives the route endpoint from a separate client process
 * (keep-alive, fixed concurrency, every request timed) over the CLINC150 test texts. Judge off (no LLM).
 *
 * Run: npm run bench:intent:http
 * The same-run baseline is a bare `GET /health` at the same concurrency; the report gives both ratios.
 * Env: DATASETS_DIR (default ../shared/datasets), BENCH_CONCURRENCY (32), BENCH_SECONDS (20),
 *      BENCH_WARMUP_SECONDS (3), BENCH_RULES (1000), BENCH_DB (pglite | postgres, default pglite),
 *      BENCH_DECISION_LOG (on | off | compare, default on): the decision log (docs/decision-log.md) records every
 *      routed decision; `compare` drives the route twice in the same run, log off then on, and reports the
 *      log's cost on p95 and throughput (`decisionLog`); `off` measures the route without it.
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonl } from './datasets.js';
import { passThroughEnv } from '../support/in-process-api.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const extraRules = Number(process.env.BENCH_RULES ?? 1000);
const P95_BAR_MS = 25;
const decisionLogMode = process.env.BENCH_DECISION_LOG ?? 'on';
if (!['on', 'off', 'compare'].includes(decisionLogMode)) throw new Error(`BENCH_DECISION_LOG must be on, off or compare (got ${decisionLogMode})`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

// ---------------------------------------------------------------- client process
interface ClientArgs {
  url: string;
  key: string;
  messages: string[];
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
  /** Drive the same-run baseline instead: `GET /health` (public, no body, the shared database probe). */
  baseline?: boolean;
}
interface ClientResult {
  requests: number;
  errors: number;
  non200: number;
  latenciesMs: number[];
  elapsedMs: number;
}

async function runClient(args: ClientArgs): Promise<ClientResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: args.concurrency });
  const target = new URL(args.baseline ? '/health' : '/ai/intent/route', args.url);
  let next = 0;
  const send = (message: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const body = args.baseline ? '' : JSON.stringify({ message });
      const req = http.request(
        target,
        args.baseline
          ? { method: 'GET', agent }
          : { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': args.key } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const loop = async (until: number, record: ClientResult | null): Promise<void> => {
    while (performance.now() < until) {
      const message = args.messages[next++ % args.messages.length];
      const started = performance.now();
      try {
        const status = await send(message);
        if (record !== null) {
          record.requests++;
          record.latenciesMs.push(performance.now() - started);
          if (status !== 200) record.non200++;
        }
      } catch {
        if (record !== null) record.errors++;
      }
    }
  };
  const warmEnd = performance.now() + args.warmupSeconds * 1000;
  await Promise.all(Array.from({ length: args.concurrency }, () => loop(warmEnd, null)));
  const result: ClientResult = { requests: 0, errors: 0, non200: 0, latenciesMs: [], elapsedMs: 0 };
  const started = performance.now();
  await Promise.all(Array.from({ length: args.concurrency }, () => loop(started + args.seconds * 1000, result)));
  result.elapsedMs = performance.now() - started;
  agent.destroy();
  return result;
}

if (process.argv.includes('--client')) {
  process.once('message', (args: ClientArgs) => {
    runClient(args).then(
      (result) => {
        process.send?.(result, () => process.exit(0));
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

// ---------------------------------------------------------------- server process
async function main(): Promise<void> {
  const { createApp } = await import('../../apps/api/src/create-app.js');
  const { runMigrations, startEmbeddedPostgres } = await import('@arbiter/database');
  const kind = process.env.BENCH_DB ?? 'pglite';
  let dbUrl: string;
  let closeDb: () => Promise<void>;
  if (kind === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-intent-http-'));
    const embedded = await startEmbeddedPostgres(dir, concurrency + 16);
    dbUrl = embedded.url;
    closeDb = async () => {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const pg = (await import('pg')).default;
    const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `arbiter_bench_intent_${process.pid}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    dbUrl = u.toString();
    closeDb = async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    };
  }
  await runMigrations(dbUrl, path.resolve('migrations'));
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: dbUrl,
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      LLM_PROVIDER: 'none',
      DB_POOL_MAX: String(Math.min(concurrency + 4, 40)),
      SWAGGER_ENABLED: 'false',
      ...passThroughEnv(),
    },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const post = async (url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };
  try {
    const created = await post('/admin/tenants', { authorization: `Bearer ${ADMIN}` }, { name: 'bench-intent' });
    const tenant = created.json as { apiKeys: { client: string; operator: string } };
    const op = { 'x-api-key': tenant.apiKeys.operator };

    // 1. Load CLINC150 (in-scope intents; examples are embedded once, on save) and the extra rules.
    const train = readJsonl('clinc150', 'train.jsonl').filter((r) => r.intent !== 'oos');
    const byIntent = new Map<string, string[]>();
    for (const r of train) byIntent.set(r.intent, [...(byIntent.get(r.intent) ?? []), r.text]);
    const loadStarted = performance.now();
    // One bulk request (one transaction, one retrain) instead of a request per intent.
    const intentRules = [...byIntent].map(([intent, semanticExamples]) => ({ intent, semanticExamples }));
    const bulk = await post('/admin/intent-rules/bulk', op, { rules: intentRules });
    if (bulk.status !== 201) throw new Error(`bulk intents: ${bulk.status} ${JSON.stringify(bulk.json).slice(0, 500)}`);
    const examplesMs = performance.now() - loadStarted;
    const rulesStarted = performance.now();
    const extra = Array.from({ length: extraRules }, (_, i) => ({
      intent: `synthetic_${i % 50}`,
      keywords: [`zqk${i}word`, `关键词${i}号`],
      patterns: [`\\bzqp${i}x\\d{2,4}\\b`, `型号\\s*ZQ-${i}`],
      priority: i % 5,
    }));
    for (let i = 0; i < extra.length; i += 500) {
      const res = await post('/admin/intent-rules/bulk', op, { rules: extra.slice(i, i + 500) });
      if (res.status !== 201) throw new Error(`extra rules: ${res.status} ${JSON.stringify(res.json).slice(0, 500)}`);
    }
    const extraMs = performance.now() - rulesStarted;
    console.log(
      `loaded ${byIntent.size} intents / ${train.length} examples in ${Math.round(examplesMs)} ms, ${extraRules} keyword/regex rules in ${Math.round(extraMs)} ms`,
    );

    // 2. First request compiles the router; wait until the background classifier is serving.
    const compileStarted = performance.now();
    let aggregation = '';
    for (let i = 0; i < 600; i++) {
      const res = await post('/ai/intent/route', { 'x-api-key': tenant.apiKeys.client }, { message: 'what is my bank balance' });
      aggregation = (res.json as { routeTrace: { semanticMatch: { aggregation?: string } } }).routeTrace.semanticMatch.aggregation ?? '';
      if (aggregation === 'classifier') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const readyMs = performance.now() - compileStarted;
    console.log(`router compiled and classifier ready after ${Math.round(readyMs)} ms (aggregation served: ${aggregation})`);
    const rssAfterLoad = process.memoryUsage().rss;

    // 3. Load from a separate process: the route, then the same-run baseline (a bare GET) with the same concurrency.
    const messages = readJsonl('clinc150', 'test.jsonl').map((r) => r.text);
    const drive = (baseline: boolean) => {
      const child = fork(fileURLToPath(import.meta.url), ['--client'], { execArgv: process.execArgv, stdio: 'inherit' });
      return new Promise<ClientResult>((resolve, reject) => {
        child.once('message', (m) => resolve(m as ClientResult));
        child.once('error', reject);
        child.once('exit', (code) => {
          if (code !== 0) reject(new Error(`client exited with ${code}`));
        });
        child.send({ url: base, key: tenant.apiKeys.client, messages, concurrency, seconds, warmupSeconds, baseline } satisfies ClientArgs);
      });
    };
    const { DecisionLogWriter } = await import('@arbiter/intent-learning');
    const writer = app.get(DecisionLogWriter);
    const summary = (r: ClientResult) => {
      const l = [...r.latenciesMs].sort((a, b) => a - b);
      return {
        requests: r.requests,
        errors: r.errors + r.non200,
        throughputRps: r2(r.requests / (r.elapsedMs / 1000)),
        p50: r2(percentile(l, 50)),
        p95: r2(percentile(l, 95)),
      };
    };
    let logOff: ClientResult | null = null;
    if (decisionLogMode === 'compare') {
      writer.enabled = false;
      logOff = await drive(false);
    }
    writer.enabled = decisionLogMode !== 'off';
    const loggedBefore = writer.stats;
    const result = await drive(false);
    await writer.flush();
    const logged = { written: writer.stats.written - loggedBefore.written, dropped: writer.stats.dropped - loggedBefore.dropped };
    const baseline = await drive(true);
    const baselineSorted = [...baseline.latenciesMs].sort((a, b) => a - b);
    const sorted = [...result.latenciesMs].sort((a, b) => a - b);
    const report = {
      benchmark: 'intent-http',
      endpoint: 'POST /ai/intent/route',
      database: kind,
      concurrency,
      seconds,
      tenant: { intents: byIntent.size, examples: train.length, extraKeywordRegexRules: extraRules },
      requests: result.requests,
      errors: result.errors,
      non200: result.non200,
      throughputRps: r2(result.requests / (result.elapsedMs / 1000)),
      latencyMs: {
        p50: r2(percentile(sorted, 50)),
        p95: r2(percentile(sorted, 95)),
        p99: r2(percentile(sorted, 99)),
        max: r2(sorted[sorted.length - 1] ?? NaN),
        mean: r2(sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length)),
      },
      bar: { p95Ms: P95_BAR_MS, met: percentile(sorted, 95) <= P95_BAR_MS },
      baseline: {
        endpoint: 'GET /health',
        throughputRps: r2(baseline.requests / (baseline.elapsedMs / 1000)),
        latencyMs: { p50: r2(percentile(baselineSorted, 50)), p95: r2(percentile(baselineSorted, 95)), p99: r2(percentile(baselineSorted, 99)) },
        errors: baseline.errors + baseline.non200,
      },
      ratio: {
        throughput: r2(result.requests / (result.elapsedMs / 1000) / (baseline.requests / (baseline.elapsedMs / 1000))),
        p95: r2(percentile(sorted, 95) / percentile(baselineSorted, 95)),
      },
      decisionLog: {
        mode: decisionLogMode,
        // The main figures above are with the log as `mode` says (compare: on).
        rowsWritten: logged.written,
        rowsDropped: logged.dropped,
        ...(logOff !== null
          ? {
              off: summary(logOff),
              on: summary(result),
              p95CostMs: r2(summary(result).p95 - summary(logOff).p95),
              p95Ratio: r2(summary(result).p95 / summary(logOff).p95),
              throughputRatio: r2(summary(result).throughputRps / summary(logOff).throughputRps),
            }
          : {}),
      },
      load: { examplesMs: Math.round(examplesMs), extraRulesMs: Math.round(extraMs), compileAndTrainMs: Math.round(readyMs) },
      serverRssMb: { afterLoad: Math.round(rssAfterLoad / 1048576), afterRun: Math.round(process.memoryUsage().rss / 1048576) },
      machine: { cpus: cpus().length, loadavg1m: r2(loadavg()[0]), node: process.version },
      at: new Date().toISOString(),
    };
    console.log(JSON.stringify(report, null, 2));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(path.join('bench/results', `intent-http-${report.at.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2) + '\n');
  } finally {
    await app.close();
    await closeDb();
  }
}
