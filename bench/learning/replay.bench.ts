/**
 * Replay benchmark (issue 14: "replay of 100,000 logged decisions ≤ 60 s on PostgreSQL"). Boots the API
 * in-process on a fresh database, loads CLINC150's 150 in-scope intents (15,000 examples) through the bulk
 * endpoint, waits for the classifier, seeds BENCH_DECISIONS logged decisions (messages cycling through
 * CLINC150's test set, one per millisecond) straight into `decision_log`, then requests a replay under a
 * candidate config (`minTriggerThreshold` 0.5) and times the real `learning.intent-replay` job run by
 * `JobsService.runPending()` until the replay has succeeded. Also the job's per-decision cost, and the
 * share of decisions the candidate changed.
 *
 * Run: npm run bench:learning:replay
 * Env: BENCH_DB (postgres | pglite, default postgres), BENCH_DECISIONS (default 100,000), BENCH_POSTGRES_URL,
 *      DATASETS_DIR (default ../shared/datasets).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startInProcessApi } from '../support/in-process-api.js';
import { readJsonl } from '../intent/datasets.js';

const kind = process.env.BENCH_DB ?? 'postgres';
const total = Number(process.env.BENCH_DECISIONS ?? 100_000);
const BAR_SECONDS = 60;

async function main(): Promise<void> {
  const { JobsService } = await import('@arbiter/jobs');
  const api = await startInProcessApi({ kind, name: 'replay', embeddedConnections: 8 });
  const { app, call, dbUrl } = api;
  try {
    const tenant = await api.createTenant('bench-replay');
    const tenantId = tenant.id;
    const op = tenant.operator;
    const client = tenant.client;
    const train = readJsonl('clinc150', 'train.jsonl').filter((r) => r.intent !== 'oos');
    const byIntent = new Map<string, string[]>();
    for (const r of train) byIntent.set(r.intent, [...(byIntent.get(r.intent) ?? []), r.text]);
    const bulk = await call('POST', '/admin/intent-rules/bulk', op, {
      rules: [...byIntent].map(([intent, semanticExamples]) => ({ intent, semanticExamples })),
    });
    if (bulk.status !== 201) throw new Error(`bulk: ${bulk.status}`);
    // wait for the trained classifier (the replay waits for it too; not part of the replay's time)
    for (;;) {
      const r = await call<{ routeTrace: { semanticMatch: { classifierVersion?: string } } }>('POST', '/ai/intent/route', client, {
        message: 'what is my balance',
      });
      if (r.json.routeTrace.semanticMatch.classifierVersion !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const test = readJsonl('clinc150', 'test.jsonl');
    const seedStarted = performance.now();
    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    const start = new Date(Date.now() - total - 60_000);
    await db.query(
      `INSERT INTO decision_log (tenant_id, id, created_at, source, message, config_version, rules_version, intent, reason, need_clarify, confidence, latency_ms)
       SELECT $1::uuid, gen_random_uuid(), $2::timestamptz + (i || ' milliseconds')::interval, 'route', ($3::text[])[1 + i % $4::int], 0, 1,
              ($5::text[])[1 + i % $4::int], 'semantic_override', false, 0.8, 1
         FROM generate_series(0, $6::int - 1) AS i`,
      [tenantId, start.toISOString(), test.map((r) => r.text), test.length, test.map((r) => (r.intent === 'oos' ? null : r.intent)), total],
    );
    await db.end();
    const seedMs = performance.now() - seedStarted;

    const requested = await call<{ id: string; decisions: number }>('POST', '/admin/intent/replay', op, {
      from: start.toISOString(),
      // the seeded decisions only (the warm-up routes above are logged too, later)
      to: new Date(start.getTime() + total).toISOString(),
      config: { minTriggerThreshold: 0.5 },
    });
    if (requested.status !== 202 || requested.json.decisions !== total) throw new Error(`replay: ${requested.status} ${JSON.stringify(requested.json)}`);
    const load = loadavg()[0];
    const jobStarted = performance.now();
    await app.get(JobsService).runPending();
    const jobMs = performance.now() - jobStarted;
    const done = await call<{ status: string; report: { total: number; changed: number; intentChanged: number } }>(
      'GET',
      `/admin/intent/replays/${requested.json.id}`,
      op,
    );
    if (done.json.status !== 'succeeded' || done.json.report.total !== total)
      throw new Error(`replay did not finish: ${JSON.stringify(done.json).slice(0, 300)}`);
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverageAtStart: Math.round(load * 100) / 100,
      db: kind,
      intents: byIntent.size,
      decisions: total,
      seedMs: Math.round(seedMs),
      replaySeconds: Math.round(jobMs / 10) / 100,
      decisionsPerSecond: Math.round(total / (jobMs / 1000)),
      changed: done.json.report.changed,
      intentChanged: done.json.report.intentChanged,
      bar: `<= ${BAR_SECONDS} s`,
      met: jobMs / 1000 <= BAR_SECONDS,
    };
    console.log(JSON.stringify(result, null, 2));
    const dir = path.resolve('bench/results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `learning-replay-${result.date.replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
  } finally {
    await api.close();
  }
}

await main();
