/**
 * `bench:chat:soak` (issue 24, "Load and faults"): 64 concurrent streaming chats (`POST /ai/chat` with
 * `Accept: text/event-stream`, no model) on the embedded database for 10 minutes. Each stream is a
 * conversation of five turns (the follow-ups continue it through `conversationId`), then a new one.
 * Bars: no errors (every stream ends with `done`, status 200), p95 time to the first `delta` ≤ 150 ms,
 * RSS growth ≤ 10 % (the API process, after a one-minute warm-up): the memory it keeps, RSS right after a full
 * garbage collection at the start and at the end of the measured window, both under load. The mean of the last
 * minute's RSS over the first minute's is reported beside it: it follows the V8 heap's size between collections
 * (a sawtooth of ±150 MB here), not what the process keeps — see docs/hot-paths.md "Memory under a soak".
 *
 * The API runs in this process (`createApp` on a fresh embedded database, demo intents and knowledge);
 * the load generator runs in a child process (`--load`) so it does not share the API's event loop.
 * Env: BENCH_STREAMS (64), BENCH_SECONDS (600), BENCH_WARMUP_SECONDS (60), BENCH_THINK_MS (2000; 0 = closed loop).
 * Run: npm run bench:chat:soak
 */
import { request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DEMO_INTENT_RULES } from '@arbiter/intent';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { benchEntry, runLoadInChild } from '../support/child-load.js';
import { startInProcessApi } from '../support/in-process-api.js';

const streams = Number(process.env.BENCH_STREAMS ?? 64);
const seconds = Number(process.env.BENCH_SECONDS ?? 600);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 60);
const thinkMs = Number(process.env.BENCH_THINK_MS ?? 2000);
const BARS = { errors: 0, p95FirstDeltaMs: 150, rssGrowth: 0.1 };
const TURNS_PER_CONVERSATION = 5;
const FIRST = [
  '机械臂报警 E201 怎么处理？',
  '示教器黑屏怎么办',
  'How do I upgrade the firmware?',
  'E202 编码器报警',
  '控制柜连不上电脑',
  'warranty for the teach pendant',
];
const FOLLOW_UPS = ['还是不行', '那 E202 呢？', 'what about the warranty?', '为什么会这样', "what's the next step?", '怎么申请退款'];

interface LoadArgs {
  port: number;
  key: string;
  streams: number;
  seconds: number;
  warmupSeconds: number;
  thinkMs: number;
}
interface LoadResult {
  turns: number;
  errors: number;
  errorSamples: string[];
  firstDeltaMs: number[];
  totalMs: number[];
}

/** One streamed turn: time to the first `delta`, whole time, the `done` body's conversation id. */
function streamTurn(
  port: number,
  key: string,
  body: unknown,
): Promise<{ ok: boolean; firstDelta: number; total: number; conversationId?: string; why?: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const data = JSON.stringify(body);
    let firstDelta = -1;
    let buffer = '';
    let done: { conversationId?: string } | null = null;
    let failed: string | undefined;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/ai/chat',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), accept: 'text/event-stream', 'x-api-key': key },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (\w+)$/m.exec(block)?.[1];
            if (event === 'delta' && firstDelta < 0) firstDelta = performance.now() - started;
            if (event === 'done') done = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as { conversationId?: string };
            if (event === 'error') failed = `error event: ${block.slice(0, 200)}`;
          }
        });
        res.on('end', () => {
          const total = performance.now() - started;
          if (res.statusCode !== 200) failed ??= `status ${res.statusCode}: ${buffer.slice(0, 200)}`;
          else if (!done) failed ??= 'stream ended without done';
          else if (firstDelta < 0) failed ??= 'no delta';
          resolve({ ok: !failed, firstDelta, total, conversationId: done?.conversationId, why: failed });
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ ok: false, firstDelta, total: performance.now() - started, why: String(error) }));
    req.end(data);
  });
}

/** The load generator (child process): `streams` loops of five-turn conversations until the time is up. */
async function load(args: LoadArgs): Promise<LoadResult> {
  const result: LoadResult = { turns: 0, errors: 0, errorSamples: [], firstDeltaMs: [], totalMs: [] };
  const measureFrom = Date.now() + args.warmupSeconds * 1000;
  const endAt = measureFrom + args.seconds * 1000;
  const loop = async (n: number) => {
    let turn = 0;
    let conversationId: string | undefined;
    while (Date.now() < endAt) {
      const message = turn === 0 ? FIRST[(n + turn) % FIRST.length] : FOLLOW_UPS[(n + turn) % FOLLOW_UPS.length];
      const answer = await streamTurn(args.port, args.key, { message, ...(conversationId ? { conversationId } : {}) });
      if (Date.now() >= measureFrom) {
        result.turns++;
        if (answer.ok) {
          result.firstDeltaMs.push(answer.firstDelta);
          result.totalMs.push(answer.total);
        } else {
          result.errors++;
          if (result.errorSamples.length < 10) result.errorSamples.push(answer.why ?? 'unknown');
        }
      }
      if (args.thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, args.thinkMs * (0.5 + Math.random())));
      turn = (turn + 1) % TURNS_PER_CONVERSATION;
      conversationId = turn === 0 ? undefined : (answer.conversationId ?? undefined);
      if (!answer.conversationId) turn = 0;
    }
  };
  await Promise.all(Array.from({ length: args.streams }, (_, n) => loop(n)));
  return result;
}

/** A full collection of the API's heap (this process), then its RSS and heap: the memory it keeps. */
async function retainedMemory(): Promise<{ rssMb: number; heapUsedMb: number }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  await new Promise((resolve) => setTimeout(resolve, 1000)); // sweeping and page release finish
  gc();
  const m = process.memoryUsage();
  return { rssMb: m.rss / 1048576, heapUsedMb: m.heapUsed / 1048576 };
}

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main(): Promise<void> {
  const api = await startInProcessApi({ kind: 'pglite', name: 'soak' });
  try {
    const tenant = await api.createTenant('soak');
    for (const rule of DEMO_INTENT_RULES) await api.call('POST', '/admin/intent-rules', tenant.operator, rule);
    const bulk = await api.call('POST', '/admin/knowledge/documents/bulk', tenant.operator, DEMO_KNOWLEDGE);
    if (bulk.status !== 200) throw new Error(`knowledge: ${bulk.status}`);
    const port = Number(new URL(api.base).port);
    const rss: { at: number; mb: number }[] = [];
    const started = Date.now();
    const sampler = setInterval(() => rss.push({ at: (Date.now() - started) / 1000, mb: process.memoryUsage().rss / 1048576 }), 5000);
    process.stdout.write(`${streams} streams, think time ${thinkMs} ms ± 50 %, ${warmupSeconds} s warm-up, ${seconds} s measured …\n`);
    const retained: Promise<{ rssMb: number; heapUsedMb: number }>[] = [];
    const atStart = setTimeout(() => retained.push(retainedMemory()), warmupSeconds * 1000);
    const atEnd = setTimeout(() => retained.push(retainedMemory()), (warmupSeconds + seconds - 5) * 1000); // load still running
    const result = await runLoadInChild<LoadArgs, LoadResult>(import.meta.url, {
      port,
      key: tenant.client['x-api-key'],
      streams,
      seconds,
      warmupSeconds,
      thinkMs,
    });
    clearInterval(sampler);
    clearTimeout(atStart);
    clearTimeout(atEnd);
    const [keptAtStart, keptAtEnd] = await Promise.all(retained);
    if (!keptAtStart || !keptAtEnd) throw new Error('the run ended before both retained-memory samples');
    const measured = rss.filter((s) => s.at >= warmupSeconds);
    const mean = (xs: { mb: number }[]) => xs.reduce((s, x) => s + x.mb, 0) / Math.max(1, xs.length);
    const firstMinute = mean(measured.filter((s) => s.at < warmupSeconds + 60));
    const lastMinute = mean(measured.filter((s) => s.at >= warmupSeconds + seconds - 60));
    const meanGrowth = Math.round((lastMinute / firstMinute - 1) * 1000) / 1000;
    const growth = Math.round((keptAtEnd.rssMb / keptAtStart.rssMb - 1) * 1000) / 1000;
    const firsts = [...result.firstDeltaMs].sort((a, b) => a - b);
    const totals = [...result.totalMs].sort((a, b) => a - b);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    const report = {
      streams,
      thinkMs,
      seconds,
      warmupSeconds,
      turns: result.turns,
      turnsPerSecond: r1(result.turns / seconds),
      errors: result.errors,
      errorSamples: result.errorSamples,
      firstDeltaMs: { p50: r1(percentile(firsts, 50)), p95: r1(percentile(firsts, 95)), p99: r1(percentile(firsts, 99)), max: r1(firsts.at(-1) ?? Number.NaN) },
      turnMs: { p50: r1(percentile(totals, 50)), p95: r1(percentile(totals, 95)) },
      retainedMb: {
        rssAtStart: r1(keptAtStart.rssMb),
        rssAtEnd: r1(keptAtEnd.rssMb),
        heapUsedAtStart: r1(keptAtStart.heapUsedMb),
        heapUsedAtEnd: r1(keptAtEnd.heapUsedMb),
        growth,
      },
      rssMb: { firstMinute: r1(firstMinute), lastMinute: r1(lastMinute), max: r1(Math.max(...measured.map((s) => s.mb))), meanGrowth },
      bars: {
        errors: { value: result.errors, bar: BARS.errors, met: result.errors === BARS.errors },
        p95FirstDeltaMs: { value: r1(percentile(firsts, 95)), bar: BARS.p95FirstDeltaMs, met: percentile(firsts, 95) <= BARS.p95FirstDeltaMs },
        rssGrowth: { value: growth, bar: BARS.rssGrowth, met: growth <= BARS.rssGrowth },
      },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await api.close();
  }
  process.exit(0);
}

benchEntry(load, main);
