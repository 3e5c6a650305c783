/**
 * Rule edits under load (issue 13, item 2): the classifier retrains on a worker thread while the API
 * routes. Loads CLINC150's 150 in-scope intents (15,000 examples) through `POST /admin/intent-rules/bulk`
 * into a running API, waits for the classifier, then drives `POST /ai/intent/route` at BENCH_CONCURRENCY
 * from a separate client process — first idle, then while BENCH_EDITS rule edits are made one after the
 * other (each a new intent with a keyword and examples) — and reports, in the same run:
 *   (a) per edit, the time from sending the edit until a route answers by the new rule's keyword,
 *   (b) per edit, the time until the retrained classifier serves (the route trace's
 *       `semanticMatch.classifierVersion` changes from the one serving before the edit),
 *   (c) route p95 idle vs during training (requests started between an edit and its classifier's swap).
 * Also the cold start: bulk import → first route served by the trained classifier.
 *
 * Run: npm run bench:intent:training
 * Env: DATASETS_DIR (default ../shared/datasets), BENCH_CONCURRENCY (32), BENCH_WARMUP_SECONDS (3, not
 *      recorded), BENCH_IDLE_SECONDS (10), BENCH_EDITS (3), BENCH_DB (pglite | postgres, default pglite),
 *      BENCH_POSTGRES_URL.
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInProcessApi } from '../support/in-process-api.js';
import { readJsonl } from './datasets.js';

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const edits = Number(process.env.BENCH_EDITS ?? 3);
const POLL_MS = 20;
const DEADLINE_MS = 300_000;
const BARS = { ruleRoutesMs: 1_000, classifierServesMs: 5_000, p95Ratio: 1.5 };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

function summary(latencies: number[]): { requests: number; p50: number; p95: number; p99: number; max: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50: r2(percentile(sorted, 50)),
    p95: r2(percentile(sorted, 95)),
    p99: r2(percentile(sorted, 99)),
    max: r2(sorted.at(-1) ?? NaN),
  };
}

// ---------------------------------------------------------------- client process
interface ClientArgs {
  url: string;
  key: string;
  messages: string[];
  concurrency: number;
}
/** Per request: its start (epoch ms, comparable across the two processes) and its latency (ms). */
interface ClientResult {
  startedAt: number[];
  latencyMs: number[];
  errors: number;
  non200: number;
}

/** Drives the route until the parent sends 'stop'. */
async function runClient(args: ClientArgs, stopped: () => boolean): Promise<ClientResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: args.concurrency });
  const target = new URL('/ai/intent/route', args.url);
  const result: ClientResult = { startedAt: [], latencyMs: [], errors: 0, non200: 0 };
  let next = 0;
  const send = (message: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ message });
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': args.key } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const loop = async (): Promise<void> => {
    while (!stopped()) {
      const message = args.messages[next++ % args.messages.length];
      const at = Date.now();
      const started = performance.now();
      try {
        const status = await send(message);
        result.startedAt.push(at);
        result.latencyMs.push(performance.now() - started);
        if (status !== 200) result.non200++;
      } catch {
        result.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: args.concurrency }, loop));
  agent.destroy();
  return result;
}

if (process.argv.includes('--client')) {
  let stop = false;
  process.on('message', (m: ClientArgs | 'stop') => {
    if (m === 'stop') {
      stop = true;
      return;
    }
    runClient(m, () => stop).then(
      (result) => process.send?.(result, () => process.exit(0)),
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
interface RouteBody {
  finalIntent: string | null;
  routeTrace: { semanticMatch: { aggregation?: string; classifierVersion?: string } };
}

async function main(): Promise<void> {
  const kind = process.env.BENCH_DB ?? 'pglite';
  const api = await startInProcessApi({
    kind,
    name: 'training',
    poolMax: Math.min(concurrency + 4, 40),
    embeddedConnections: concurrency + 16,
  });
  const { base } = api;
  const post = <T>(url: string, headers: Record<string, string>, body: unknown) => api.call<T>('POST', url, headers, body);
  try {
    const tenant = await api.createTenant('bench-training');
    const op = tenant.operator;
    const client = tenant.client;
    const route = async (message: string): Promise<RouteBody> => {
      const res = await post<RouteBody>('/ai/intent/route', client, { message });
      if (res.status !== 200) throw new Error(`route: ${res.status}`);
      return res.json;
    };
    /** Polls the route with `message` until `done` holds; ms since `since`. */
    const until = async (since: number, message: string, done: (b: RouteBody) => boolean): Promise<{ ms: number; body: RouteBody }> => {
      for (;;) {
        const body = await route(message);
        const ms = performance.now() - since;
        if (done(body)) return { ms, body };
        if (ms > DEADLINE_MS) throw new Error(`not reached within ${DEADLINE_MS} ms: ${JSON.stringify(body.routeTrace.semanticMatch)}`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };

    // 1. Cold start: CLINC150's in-scope intents in one bulk request, then the first route by the trained classifier.
    const train = readJsonl('clinc150', 'train.jsonl').filter((r) => r.intent !== 'oos');
    const byIntent = new Map<string, string[]>();
    for (const r of train) byIntent.set(r.intent, [...(byIntent.get(r.intent) ?? []), r.text]);
    const loadStarted = performance.now();
    const bulk = await post('/admin/intent-rules/bulk', op, { rules: [...byIntent].map(([intent, semanticExamples]) => ({ intent, semanticExamples })) });
    if (bulk.status !== 201) throw new Error(`bulk: ${bulk.status} ${JSON.stringify(bulk.json).slice(0, 300)}`);
    const bulkMs = performance.now() - loadStarted;
    const cold = await until(loadStarted, 'what is my bank balance', (b) => b.routeTrace.semanticMatch.classifierVersion !== undefined);
    console.log(
      `loaded ${byIntent.size} intents / ${train.length} examples (bulk ${Math.round(bulkMs)} ms); classifier serving ${Math.round(cold.ms)} ms after the import started`,
    );

    // 2. Load from a separate process: idle, then during the edits.
    const messages = readJsonl('clinc150', 'test.jsonl').map((r) => r.text);
    const drive = () => {
      const child = fork(fileURLToPath(import.meta.url), ['--client'], { execArgv: process.execArgv, stdio: 'inherit' });
      const result = new Promise<ClientResult>((resolve, reject) => {
        child.once('message', (m) => resolve(m as ClientResult));
        child.once('error', reject);
        child.once('exit', (code) => {
          if (code !== 0) reject(new Error(`client exited with ${code}`));
        });
      });
      child.send({ url: base, key: client['x-api-key']!, messages, concurrency } satisfies ClientArgs);
      return { stop: () => child.send('stop'), result };
    };
    const idle = drive();
    const idleFrom = Date.now() + warmupSeconds * 1000;
    await new Promise((r) => setTimeout(r, (warmupSeconds + idleSeconds) * 1000));
    idle.stop();
    const idleResult = await idle.result;
    const idleLatencies = idleResult.latencyMs.filter((_, i) => idleResult.startedAt[i] >= idleFrom);

    const during = drive();
    await new Promise((r) => setTimeout(r, 1000)); // the load is running
    const windows: { from: number; to: number }[] = [];
    const editResults: { ruleRoutesMs: number; classifierServesMs: number; versionBefore: string; versionAfter: string }[] = [];
    for (let i = 0; i < edits; i++) {
      const keyword = `zqbenchedit${i}`;
      const before = (await route(`${keyword} please`)).routeTrace.semanticMatch.classifierVersion ?? '';
      const from = Date.now();
      const started = performance.now();
      const res = await post('/admin/intent-rules', op, {
        intent: `bench_edit_${i}`,
        keywords: [keyword],
        semanticExamples: Array.from({ length: 20 }, (_, k) => `bench edit ${i} example ${k} ${keyword}`),
      });
      if (res.status !== 201) throw new Error(`edit ${i}: ${res.status}`);
      const byRule = await until(started, `${keyword} please`, (b) => b.finalIntent === `bench_edit_${i}`);
      const retrained = await until(started, `${keyword} please`, (b) => (b.routeTrace.semanticMatch.classifierVersion ?? before) !== before);
      windows.push({ from, to: Date.now() });
      editResults.push({
        ruleRoutesMs: Math.round(byRule.ms),
        classifierServesMs: Math.round(retrained.ms),
        versionBefore: before,
        versionAfter: retrained.body.routeTrace.semanticMatch.classifierVersion ?? '',
      });
      console.log(`edit ${i}: routes by its rule after ${Math.round(byRule.ms)} ms, retrained classifier serves after ${Math.round(retrained.ms)} ms`);
      await new Promise((r) => setTimeout(r, 500));
    }
    during.stop();
    const duringResult = await during.result;
    const inWindows: number[] = [];
    duringResult.startedAt.forEach((at, i) => {
      if (windows.some((w) => at >= w.from && at <= w.to)) inWindows.push(duringResult.latencyMs[i]);
    });

    const idleSummary = summary(idleLatencies);
    const trainingSummary = summary(inWindows);
    const worst = (k: 'ruleRoutesMs' | 'classifierServesMs') => Math.max(...editResults.map((e) => e[k]));
    const report = {
      benchmark: 'intent-training',
      database: kind,
      concurrency,
      tenant: { intents: byIntent.size, examples: train.length },
      coldStart: { bulkImportMs: Math.round(bulkMs), classifierServesMs: Math.round(cold.ms) },
      edits: editResults,
      routeIdle: { ...idleSummary, errors: idleResult.errors + idleResult.non200, seconds: idleSeconds },
      routeDuringTraining: { ...trainingSummary, errors: duringResult.errors + duringResult.non200, windowsMs: windows.map((w) => w.to - w.from) },
      p95Ratio: r2(trainingSummary.p95 / idleSummary.p95),
      bars: {
        ruleRoutesMs: { bar: BARS.ruleRoutesMs, worst: worst('ruleRoutesMs'), met: worst('ruleRoutesMs') < BARS.ruleRoutesMs },
        classifierServesMs: { bar: BARS.classifierServesMs, worst: worst('classifierServesMs'), met: worst('classifierServesMs') <= BARS.classifierServesMs },
        p95Ratio: { bar: BARS.p95Ratio, met: trainingSummary.p95 / idleSummary.p95 <= BARS.p95Ratio },
      },
      machine: { cpus: cpus().length, loadavg1m: r2(loadavg()[0]), node: process.version },
      at: new Date().toISOString(),
    };
    console.log(JSON.stringify(report, null, 2));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(path.join('bench/results', `intent-training-${report.at.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2) + '\n');
  } finally {
    await api.close();
  }
}
