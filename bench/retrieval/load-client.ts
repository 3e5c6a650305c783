/**
 * Load generator for `bench:retrieval`, run in its own process so that it does not share the API's
 * event loop: keep-alive `fetch` at CONCURRENCY connections for SECONDS against POST
 * /ai/knowledge/lookup (one new session per request, questions from QUERIES_FILE), then the same
 * against GET /health as the same-run baseline. Prints one JSON line with the latencies.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { percentile } from './common.js';

const base = process.env.TARGET_URL as string;
const key = process.env.CLIENT_KEY as string;
const queries = JSON.parse(readFileSync(process.env.QUERIES_FILE as string, 'utf8')) as string[];
const concurrency = Number(process.env.CONCURRENCY ?? 16);
const seconds = Number(process.env.SECONDS ?? 20);

async function run(
  fire: (i: number) => Promise<void>,
): Promise<{ requests: number; rps: number; p50: number; p95: number; p99: number; max: number; errors: number }> {
  for (let i = 0; i < 50; i++) await fire(i); // warm-up
  const latencies: number[] = [];
  let errors = 0;
  let counter = 1000;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await fire(counter++);
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    errors,
  };
}

const lookup = await run(async (i) => {
  const res = await fetch(`${base}/ai/knowledge/lookup`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId: `load-${process.pid}-${i}`, query: queries[i % queries.length], topK: 5 }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`lookup ${res.status}`);
});
const health = await run(async () => {
  const res = await fetch(`${base}/health`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`health ${res.status}`);
});
process.stdout.write(`${JSON.stringify({ lookup, health })}\n`);
