/**
 * Two API replicas and the worker on the Citus cluster, against the same on one PostgreSQL (issue 28 item 5).
 * For each target, in turn: a fresh database (on Citus: on every node, `--shards` shards per distributed table),
 * replica A migrates it, replica B and the worker start, 20 tenants are made through the API (demo rules and
 * knowledge), and on Citus the placement of each tenant is read (`get_shard_id_for_distribution_column` and
 * `citus_shards`: tenants per worker). One coverage backfill per tenant is queued, then four phases of
 * `--seconds` each, every tenant and both replicas in turn, from a load generator in its own process:
 * session ingest (`POST /api/sessions` with an Idempotency-Key), feedback on those sessions, knowledge lookups,
 * chat turns. Then, from the database, `bench:replicas`' checks (bench/support/session-checks.ts: every
 * acknowledged chat or ingested session stored once, none FAILED, one coverage decision and a self-evaluation
 * each, every queued job ran once) and: every idempotency key stored once, every acknowledged feedback stored
 * with its value. Prints both targets side by side (throughput, p95, errors per phase; the checks) and writes
 * the JSON to bench/results/.
 *
 * Needs PostgreSQL on 127.0.0.1:5432 and the cluster: `sudo scripts/citus/cluster.sh start`.
 * Run: npm run bench:citus -- [--seconds=30] [--connections=16] [--tenants=20] [--shards=32] [--targets=postgres,citus]
 * Env (the flags win): BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_TENANTS, BENCH_CITUS_SHARD_COUNT,
 * BENCH_POSTGRES_URL (admin URL of the PostgreSQL), CITUS_DATABASE_URL (the coordinator, default 127.0.0.1:5440/arbiter).
 * A smoke run: npm run bench:citus -- --seconds=3 --tenants=4 --shards=4
 */
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startReplica, startWorker, stopProcesses } from '../support/api-processes.js';
import { http } from '../support/bench-http.js';
import { benchEntry, runLoadInChild } from '../support/child-load.js';
import { checkSessions, waitForJobs, type SessionChecks } from '../support/session-checks.js';
import { percentile, writeResult } from '../retrieval/common.js';
import { createTarget, tenantPlacement, type TargetKind } from './targets.js';
import { createTenants } from './tenants.js';
import { chat, feedback, ingest, KINDS, lookup, type FeedbackValue, type Kind, type Outcome, type TenantKey } from './traffic.js';

function flag(name: string, env: string, fallback: string): string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : (process.env[env] ?? fallback);
}
const seconds = Number(flag('seconds', 'BENCH_SECONDS', '30'));
const connections = Number(flag('connections', 'BENCH_CONNECTIONS', '16'));
const tenantCount = Number(flag('tenants', 'BENCH_TENANTS', '20'));
const shardCount = Number(flag('shards', 'BENCH_CITUS_SHARD_COUNT', '32'));
const targets = flag('targets', 'BENCH_TARGETS', 'postgres,citus').split(',') as TargetKind[];

interface FeedbackTarget {
  tenant: number;
  sessionId: string;
}
interface LoadArgs {
  kind: Kind;
  bases: string[];
  tenants: TenantKey[];
  connections: number;
  seconds: number;
  /** For `feedback`: the sessions to post on, each once (even positions `useful`, odd `not_useful`). */
  feedbackTargets: FeedbackTarget[];
}
interface LoadResult {
  kind: Kind;
  ok: number;
  rps: number;
  p50: number;
  p95: number;
  errors: Record<string, number>;
  /** Acknowledged session ids (chat, ingest) with their tenant's index; for feedback, the sessions and values. */
  acknowledged: { tenant: number; id: string; key?: string; value?: FeedbackValue }[];
}

/** One phase in the load process: `connections` closed loops for `seconds`, tenants and replicas in turn. */
async function load(args: LoadArgs): Promise<LoadResult> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const acknowledged: LoadResult['acknowledged'] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + args.seconds * 1000;
  await Promise.all(
    Array.from({ length: args.connections }, async (_, c) => {
      const base = args.bases[c % args.bases.length]!;
      while (performance.now() < deadline) {
        const n = next++;
        const t0 = performance.now();
        let outcome: Outcome;
        let record: LoadResult['acknowledged'][number] | undefined;
        if (args.kind === 'feedback') {
          const target = args.feedbackTargets[n];
          if (!target) break; // every ingested session has had its feedback
          const value: FeedbackValue = n % 2 ? 'not_useful' : 'useful';
          outcome = await feedback(base, args.tenants[target.tenant]!, target.sessionId, value);
          record = { tenant: target.tenant, id: target.sessionId, value };
        } else {
          const tenant = n % args.tenants.length;
          const key = `bench-${process.pid}-${n}`;
          switch (args.kind) {
            case 'chat':
              outcome = await chat(base, args.tenants[tenant]!, n);
              break;
            case 'lookup':
              outcome = await lookup(base, args.tenants[tenant]!, n, key);
              break;
            case 'ingest':
              outcome = await ingest(base, args.tenants[tenant]!, n, key);
              break;
          }
          record = { tenant, id: outcome.ok ? outcome.id : '', key };
        }
        if (outcome.ok) {
          latencies.push(performance.now() - t0);
          acknowledged.push({ ...record, id: outcome.id });
        } else errors[outcome.error] = (errors[outcome.error] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    kind: args.kind,
    ok: latencies.length,
    rps: round(latencies.length / elapsed),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    errors,
    acknowledged,
  };
}

interface TargetResult {
  target: TargetKind;
  database: string;
  setupSeconds: number;
  placement?: Record<string, number>;
  phases: Omit<LoadResult, 'acknowledged'>[];
  stores: SessionChecks;
  ingestKeysStoredOnce: boolean;
  feedbackStored: boolean;
}

async function runTarget(kind: TargetKind): Promise<TargetResult> {
  const t0 = performance.now();
  const target = await createTarget(kind, `arbiter_bench_citus_${kind}_${process.pid}`, shardCount);
  const portA = 40_000 + Math.floor(Math.random() * 10_000);
  const children: ChildProcess[] = [];
  const pool = new pg.Pool({ connectionString: target.url, max: 2 });
  try {
    // Replica A migrates the empty database; B and the worker start once it is up.
    children.push(await startReplica(target.url, portA));
    children.push(await startReplica(target.url, portA + 1));
    children.push(await startWorker(target.url));
    const bases = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portA + 1}`];
    const tenants = await createTenants(bases[0]!, tenantCount, 'bench');
    let placement: Record<string, number> | undefined;
    if (kind === 'citus') {
      placement = {};
      for (const p of await tenantPlacement(
        pool,
        tenants.map((t) => t.id),
      ))
        placement[p.worker] = (placement[p.worker] ?? 0) + 1;
      process.stdout.write(`${kind}: tenants per worker ${JSON.stringify(placement)}\n`);
    }
    const queued: string[] = [];
    for (const [i, tenant] of tenants.entries()) {
      const run = await http<{ jobId: string }>(bases[i % 2]!, 'POST', '/admin/coverage/re-evaluate', { 'x-api-key': tenant.operator }, {});
      if (run.status !== 202) throw new Error(`re-evaluate: ${run.status}`);
      queued.push(run.json.jobId);
    }
    const setupSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const keys = tenants.map((t) => ({ id: t.id, client: t.client }));
    const results: LoadResult[] = [];
    for (const phase of KINDS) {
      process.stdout.write(`${kind}: ${phase}, ${connections} connections, ${seconds} s …\n`);
      const ingested = results.find((r) => r.kind === 'ingest')?.acknowledged ?? [];
      results.push(
        await runLoadInChild<LoadArgs, LoadResult>(import.meta.url, {
          kind: phase,
          bases,
          tenants: keys,
          connections,
          seconds,
          feedbackTargets: ingested.map((a) => ({ tenant: a.tenant, sessionId: a.id })),
        }),
      );
    }
    // Let the work of the last requests and the queued jobs finish.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await waitForJobs(pool);
    const ackOf = (k: Kind) => results.find((r) => r.kind === k)!.acknowledged;
    const sessions = [...ackOf('chat'), ...ackOf('ingest')].map((a) => a.id);
    const stores = await checkSessions(pool, sessions, queued);
    const ingestKeys = ackOf('ingest').map((a) => a.key!);
    const { rows: byKey } = await pool.query<{ keys: number; sessions: number }>(
      `SELECT count(DISTINCT idempotency_key)::int AS keys, count(*)::int AS sessions FROM diagnosis_session WHERE idempotency_key = ANY($1::text[])`,
      [ingestKeys],
    );
    const posted = ackOf('feedback');
    const { rows: feedbackRows } = await pool.query<{ matching: number }>(
      `SELECT count(*)::int AS matching FROM session_feedback f
         JOIN unnest($1::uuid[], $2::text[]) AS p(session_id, feedback) ON p.session_id = f.session_id AND p.feedback = f.feedback`,
      [posted.map((p) => p.id), posted.map((p) => p.value)],
    );
    return {
      target: kind,
      database: target.database,
      setupSeconds,
      placement,
      phases: results.map(({ acknowledged: _, ...r }) => r),
      stores,
      ingestKeysStoredOnce: byKey[0]!.keys === ingestKeys.length && byKey[0]!.sessions === ingestKeys.length,
      feedbackStored: feedbackRows[0]!.matching === posted.length,
    };
  } finally {
    await pool.end();
    await stopProcesses(children);
    await target.drop();
  }
}

/** The two targets side by side: one row per phase and measure, then the checks. */
function table(results: TargetResult[]): string {
  const head = ['', ...results.map((r) => r.target)];
  const rows: string[][] = [];
  for (const kind of KINDS) {
    const of = (r: TargetResult) => r.phases.find((p) => p.kind === kind)!;
    rows.push([`${kind} req/s`, ...results.map((r) => String(of(r).rps))]);
    rows.push([`${kind} p95 ms`, ...results.map((r) => (of(r).ok ? String(of(r).p95) : '—'))]);
    rows.push([
      `${kind} errors`,
      ...results.map(
        (r) =>
          Object.entries(of(r).errors)
            .map(([k, n]) => `${n}× ${k}`)
            .join(', ') || '0',
      ),
    ]);
  }
  rows.push(['tenants per worker', ...results.map((r) => (r.placement ? Object.values(r.placement).join(' / ') : '—'))]);
  const checks = (r: TargetResult): Record<string, boolean> => ({
    ...r.stores.checks,
    ingestKeysStoredOnce: r.ingestKeysStoredOnce,
    feedbackStored: r.feedbackStored,
  });
  for (const name of Object.keys(checks(results[0]!))) rows.push([name, ...results.map((r) => String(checks(r)[name]))]);
  const widths = head.map((_, i) => Math.max(...[head, ...rows].map((row) => row[i]!.length)));
  return [head, ...rows].map((row) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`).join('\n');
}

async function main(): Promise<void> {
  const results: TargetResult[] = [];
  for (const kind of targets) results.push(await runTarget(kind));
  const file = writeResult('citus', { bench: 'citus', at: new Date().toISOString(), seconds, connections, tenants: tenantCount, shardCount, results });
  process.stdout.write(`\n${table(results)}\nwritten to ${file}\n`);
}

benchEntry(load, main);
