/**
 * Two API replicas and a worker on one PostgreSQL (issue 13 item 7). Offline `POST /ai/chat` load from
 * this process (the servers are child processes) against one replica, then spread over two replicas
 * while every process (both replicas and the worker) also executes jobs and 20 coverage backfills are
 * queued. Checks, from the database: every 200 answer is exactly one stored session (none lost, none
 * duplicated), no FAILED session, every succeeded session has exactly one coverage decision and a
 * self-evaluation, every job run executed once (one attempt, succeeded). Reports the throughput of one
 * vs two replicas — on 2 cores the point is correctness, not speed-up.
 * Env: BENCH_CONNECTIONS (16), BENCH_SECONDS (30), BENCH_POSTGRES_URL. Run: npm run bench:replicas
 */
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startReplica, startWorker, stopProcesses } from '../support/api-processes.js';
import { dropDatabase, http, withDatabase } from '../support/bench-http.js';
import { BENCH_ADMIN_TOKEN as ADMIN } from '../support/in-process-api.js';
import { CHAT_MESSAGES as MESSAGES } from '../support/chat-messages.js';
import { checkSessions, waitForJobs } from '../support/session-checks.js';
import { DEMO_INTENT_RULES } from '@arbiter/intent';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number) => void): void;
}
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Session ids of every 200 answer, over all runs: each must be stored, and none twice. */
const answeredSessions: string[] = [];

/** Chat load on one base URL; returns requests answered 200 and everything else. */
async function load(base: string, key: string, conns: number, duration: number): Promise<{ ok: number; other: Record<string, number>; errors: number }> {
  let i = 0;
  let ok = 0;
  const other: Record<string, number> = {};
  const instance = autocannon({
    url: base,
    connections: conns,
    duration,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: '/ai/chat',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify({ message: MESSAGES[i++ % MESSAGES.length] }) }),
        onResponse: (status: number, body: string) => {
          if (status !== 200) return;
          ok++;
          answeredSessions.push((JSON.parse(body) as { sessionId: string }).sessionId);
        },
      },
    ],
  });
  instance.on('response', (_c, status) => {
    if (status !== 200) other[status] = (other[status] ?? 0) + 1;
  });
  const result = await instance;
  return { ok, other, errors: result.errors + result.timeouts };
}

async function main(): Promise<void> {
  const dbName = `arbiter_bench_replicas_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const databaseUrl = withDatabase(adminUrl, dbName);
  const portA = 40_000 + Math.floor(Math.random() * 10_000);
  const portB = portA + 1;
  const children: ChildProcess[] = [];
  try {
    // Replica A migrates the empty database; B and the worker start once it is up.
    children.push(await startReplica(databaseUrl, portA));
    const a = `http://127.0.0.1:${portA}`;
    const b = `http://127.0.0.1:${portB}`;
    const tenant = await http<{ apiKeys: { client: string; operator: string } }>(
      a,
      'POST',
      '/admin/tenants',
      { authorization: `Bearer ${ADMIN}` },
      { name: 'demo' },
    );
    const op = { 'x-api-key': tenant.json.apiKeys.operator };
    for (const rule of DEMO_INTENT_RULES) await http(a, 'POST', '/admin/intent-rules', op, rule);
    await http(a, 'POST', '/admin/knowledge/documents/bulk', op, DEMO_KNOWLEDGE);
    const client = tenant.json.apiKeys.client;

    process.stdout.write(`one replica: ${connections} connections, ${seconds} s …\n`);
    await load(a, client, connections, 5); // warm-up
    const one = await load(a, client, connections, seconds);

    children.push(await startReplica(databaseUrl, portB));
    children.push(await startWorker(databaseUrl));
    await load(b, client, connections, 5); // warm-up of B
    process.stdout.write(`two replicas + worker (all running jobs), ${connections} connections split, ${seconds} s, 20 backfills queued …\n`);
    const queued: string[] = [];
    for (let k = 0; k < 20; k++) queued.push((await http<{ jobId: string }>(k % 2 ? a : b, 'POST', '/admin/coverage/re-evaluate', op, {})).json.jobId);
    const [twoA, twoB] = await Promise.all([load(a, client, Math.ceil(connections / 2), seconds), load(b, client, Math.floor(connections / 2), seconds)]);
    // Let the turns cut off at the end of the runs and the queued jobs finish.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    await waitForJobs(pool);
    const { sessions, stored, coverage, jobs, queuedRuns, checks: stores } = await checkSessions(pool, answeredSessions, queued);
    await pool.end();
    const two = { ok: twoA.ok + twoB.ok, errors: twoA.errors + twoB.errors, other: { ...twoA.other, ...twoB.other } };
    const checks = {
      noHttpErrors: one.errors + two.errors === 0 && !Object.keys(one.other).length && !Object.keys(two.other).length,
      ...stores,
    };
    const out = {
      bench: 'replicas',
      at: new Date().toISOString(),
      connections,
      seconds,
      oneReplica: { rps: Math.round((one.ok / seconds) * 10) / 10, ...one },
      twoReplicas: { rps: Math.round((two.ok / seconds) * 10) / 10, ...two },
      sessions,
      stored,
      answered200: answeredSessions.length,
      coverage,
      jobs,
      queuedRuns,
      checks,
    };
    const dir = path.join(root, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `replicas-${out.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    process.stdout.write(
      `${JSON.stringify({ oneReplica: out.oneReplica.rps, twoReplicas: out.twoReplicas.rps, answered200: answeredSessions.length, stored, sessions, coverage, queuedRuns, checks }, null, 1)}\nwritten to ${path.relative(root, file)}\n`,
    );
  } finally {
    await stopProcesses(children);
    await dropDatabase(adminUrl, dbName);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
