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
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

interface Row {
  text: string;
  intent: string;
}

const ADMIN = 'bench-admin-token-0123456789abcdef';
const kind = process.env.BENCH_DB ?? 'postgres';
const total = Number(process.env.BENCH_DECISIONS ?? 100_000);
const BAR_SECONDS = 60;

function readJsonl(file: string): Row[] {
  const dir = path.resolve(process.env.DATASETS_DIR ?? path.resolve(process.cwd(), '../shared/datasets'));
  return readFileSync(path.join(dir, 'clinc150', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

async function main(): Promise<void> {
  const { createApp } = await import('../../apps/api/src/create-app.js');
  const { runMigrations, startEmbeddedPostgres } = await import('@arbiter/database');
  const { JobsService } = await import('@arbiter/jobs');
  let dbUrl: string;
  let closeDb: () => Promise<void>;
  if (kind === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-replay-bench-'));
    const embedded = await startEmbeddedPostgres(dir, 8);
    dbUrl = embedded.url;
    closeDb = async () => {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const { dropDatabase, withDatabase } = await import('../support/bench-http.js');
    const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `arbiter_bench_replay_${process.pid}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    dbUrl = withDatabase(admin, name);
    closeDb = () => dropDatabase(admin, name);
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
      SWAGGER_ENABLED: 'false',
    },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const call = async <T>(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: T }> => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as T };
  };
  try {
    const created = await call<{ id: string; apiKeys: { client: string; operator: string } }>(
      'POST',
      '/admin/tenants',
      { authorization: `Bearer ${ADMIN}` },
      { name: 'bench-replay' },
    );
    const tenantId = created.json.id;
    const op = { 'x-api-key': created.json.apiKeys.operator };
    const client = { 'x-api-key': created.json.apiKeys.client };
    const train = readJsonl('train.jsonl').filter((r) => r.intent !== 'oos');
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

    const test = readJsonl('test.jsonl');
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
    await app.close();
    await closeDb();
  }
}

await main();
