/**
 * Operations drill on the Citus cluster (issue 28 item 6; docs/SCALING.md "Operations runbook"): while client
 * traffic runs, move a large tenant to a shard of its own and rebalance, then check that every acknowledged write
 * is stored exactly once and report the errors a client saw, by kind and by step.
 *
 * 1. A fresh database on the cluster (`--shards` shards per table, default 4), two API replicas (jobs on), `--tenants`
 *    tenants made through the API (demo rules and knowledge); tenant 0 is made large (`--large` finished sessions
 *    inserted directly).
 * 2. Traffic from a load process of its own, one loop per tenant: a session ingest (Idempotency-Key), feedback on
 *    it, every other round a chat turn and in the others a re-upload of one knowledge document (which replaces its
 *    chunks and their `knowledge_term` postings: UPDATE/DELETE on the table without a primary key). Ingest and
 *    feedback are retried like a client following the docs (a 5xx or network error: the same request again, the
 *    ingest with the same Idempotency-Key, up to 5 times); a chat turn or a re-upload that fails is not retried.
 * 3. Once every tenant has written, and 3 s more: `isolate_tenant_to_new_shard('conversation', <tenant 0>, 'CASCADE',
 *    shard_transfer_mode => --mode)`, then `citus_rebalance_start(shard_transfer_mode => --mode)` and
 *    `citus_rebalance_wait()` (a step is cancelled after `--step-timeout` s, the rebalance then stopped), then
 *    `citus_cleanup_orphaned_resources()`; traffic goes on for `--tail` seconds after. With a logical mode the
 *    database lets Citus's split decoder be used (`allowCitusDecoder`).
 * 4. Checks: every acknowledged ingest stored once (by id and by key), every acknowledged feedback stored with its
 *    value, every acknowledged chat session stored, no duplicate posting in `knowledge_term`, tenant 0 alone in its
 *    shard; the shard placements of the cluster's other databases are the same before and after (the rebalancer
 *    works per database).
 *
 * Needs the cluster: `sudo scripts/citus/cluster.sh start` (wal_level logical is set there for logical moves).
 * Run: npm run bench:citus:drill -- [--mode=block_writes|force_logical|auto] [--tenants=6] [--large=20000] [--shards=4] [--tail=5] [--step-timeout=180]
 * Env: CITUS_DATABASE_URL (the coordinator, default postgres://postgres@127.0.0.1:5440/arbiter).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { citusClusterUrl, withDatabase } from '@arbiter/testing';
import { startReplica, stopProcesses } from '../support/api-processes.js';
import { http } from '../support/bench-http.js';
import { benchEntry, startLoadInChild } from '../support/child-load.js';
import { writeResult } from '../retrieval/common.js';
import { createTarget, tenantPlacement } from './targets.js';
import { createTenants } from './tenants.js';
import { chat, feedback, ingest, type FeedbackValue, type Outcome, type TenantKey } from './traffic.js';

function flag(name: string, fallback: string): string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
}
const mode = flag('mode', 'block_writes');
const tenantCount = Number(flag('tenants', '6'));
const largeSessions = Number(flag('large', '20000'));
const shardCount = Number(flag('shards', '4'));
const tailSeconds = Number(flag('tail', '5'));
const stepTimeoutSeconds = Number(flag('step-timeout', '180'));
if (!['block_writes', 'force_logical', 'auto'].includes(mode)) throw new Error(`--mode must be block_writes, force_logical or auto, got ${mode}`);

type WriteKind = 'ingest' | 'feedback' | 'chat' | 'knowledge';
interface Attempt {
  /** When it was sent (ms since the epoch): the step it is counted in. */
  at: number;
  /** How long the request took (a write blocked by a shard move shows here). */
  ms: number;
  kind: WriteKind;
  tenant: number;
  error?: string;
}
interface Ack {
  kind: Exclude<WriteKind, 'knowledge'>;
  tenant: number;
  id: string;
  key?: string;
  value?: FeedbackValue;
}
interface TrafficArgs {
  bases: string[];
  tenants: (TenantKey & { operator: string })[];
}
interface TrafficResult {
  attempts: Attempt[];
  acks: Ack[];
  knowledgeAcks: number;
}

const RETRIES = 5;

/** Retries a write the docs make safe to repeat (same body, same Idempotency-Key) on a 5xx or network error. */
async function withRetries(kind: WriteKind, tenant: number, attempts: Attempt[], send: () => Promise<Outcome>): Promise<Outcome> {
  let outcome: Outcome = { ok: false, error: 'not sent' };
  for (let i = 0; i < RETRIES; i++) {
    const start = Date.now();
    outcome = await send();
    attempts.push({ at: start, ms: Date.now() - start, kind, tenant, ...(outcome.ok ? {} : { error: outcome.error }) });
    const retryable = !outcome.ok && (outcome.error.startsWith('5') || outcome.error.startsWith('network'));
    if (!retryable) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return outcome;
}

async function knowledgeUpload(base: string, operator: string, round: number): Promise<Outcome> {
  try {
    const res = await http<{ code?: string }>(
      base,
      'POST',
      '/admin/knowledge/documents',
      { 'x-api-key': operator },
      { filePath: 'drill/rolling.md', title: 'Rolling document', domain: 'fault-codes', content: `第 ${round} 版：机械臂报警 E201 请检查伺服驱动器电源。` },
    );
    return res.status < 300 ? { ok: true, id: String(round) } : { ok: false, error: `${res.status}${res.json.code ? ` ${res.json.code}` : ''}` };
  } catch (error) {
    return { ok: false, error: `network ${(error as { cause?: { code?: string } }).cause?.code ?? 'error'}` };
  }
}

/** The load process: one loop per tenant until stopped. */
async function traffic(args: TrafficArgs, stopped: AbortSignal): Promise<TrafficResult> {
  const attempts: Attempt[] = [];
  const acks: Ack[] = [];
  let knowledgeAcks = 0;
  await Promise.all(
    args.tenants.map(async (tenant, t) => {
      for (let round = 0; !stopped.aborted; round++) {
        const base = args.bases[round % args.bases.length]!;
        const key = `drill-${t}-${round}`;
        const ingested = await withRetries('ingest', t, attempts, () => ingest(base, tenant, round, key));
        if (ingested.ok) {
          acks.push({ kind: 'ingest', tenant: t, id: ingested.id, key });
          const value: FeedbackValue = round % 2 ? 'not_useful' : 'useful';
          const posted = await withRetries('feedback', t, attempts, () => feedback(base, tenant, ingested.id, value));
          if (posted.ok) acks.push({ kind: 'feedback', tenant: t, id: ingested.id, value });
        }
        if (round % 2 === 0) {
          const start = Date.now();
          const turn = await chat(base, tenant, round);
          attempts.push({ at: start, ms: Date.now() - start, kind: 'chat', tenant: t, ...(turn.ok ? {} : { error: turn.error }) });
          if (turn.ok) acks.push({ kind: 'chat', tenant: t, id: turn.id });
        }
        if (round % 2 === 1) {
          const start = Date.now();
          const upload = await knowledgeUpload(base, tenant.operator, round);
          attempts.push({ at: start, ms: Date.now() - start, kind: 'knowledge', tenant: t, ...(upload.ok ? {} : { error: upload.error }) });
          if (upload.ok) knowledgeAcks++;
        }
      }
    }),
  );
  return { attempts, acks, knowledgeAcks };
}

/** Shard placements of every other database of the cluster that has Citus (read only): `shardid@group` per database. */
async function otherPlacements(own: string): Promise<Record<string, string>> {
  const admin = new pg.Client({ connectionString: withDatabase(citusClusterUrl(), 'postgres') });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datallowconn AND datname NOT IN ('postgres', $1)`, [own]);
  await admin.end();
  const out: Record<string, string> = {};
  for (const { datname } of rows) {
    const client = new pg.Client({ connectionString: withDatabase(citusClusterUrl(), datname) });
    try {
      await client.connect();
      const { rows: placed } = await client.query<{ p: string }>(
        `SELECT coalesce(string_agg(shardid || '@' || groupid, ',' ORDER BY shardid), '') AS p FROM pg_dist_placement`,
      );
      out[datname] = placed[0]!.p;
    } catch {
      // No citus extension there, or the database was dropped meanwhile (another helper's test): not compared.
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const target = await createTarget('citus', `arbiter_drill_${process.pid}`, shardCount);
  const pool = new pg.Pool({ connectionString: target.url, max: 3 });
  // The operator's session: a step that outlasts --step-timeout is cancelled (a logical split can wait forever, below).
  const ops = new pg.Client({ connectionString: target.url, statement_timeout: stepTimeoutSeconds * 1000 });
  // Dropping the database at the end terminates what is still connected to it: not a failure of the drill.
  ops.on('error', () => undefined);
  pool.on('error', () => undefined);
  const children: ChildProcess[] = [];
  try {
    await ops.connect();
    if (mode !== 'block_writes') await allowCitusDecoder(target.database);
    const portA = 40_000 + Math.floor(Math.random() * 10_000);
    // The replicas' logs name the cause of each 5xx (by request id): bench/results/, next to the result.
    mkdirSync(path.resolve('bench/results'), { recursive: true });
    const logs = [0, 1].map((i) => path.resolve('bench/results', `citus-drill-${process.pid}-replica-${i}.log`));
    children.push(await startReplica(target.url, portA, {}, logs[0]));
    children.push(await startReplica(target.url, portA + 1, {}, logs[1]));
    const bases = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portA + 1}`];
    const tenants = await createTenants(bases[0]!, tenantCount, 'drill');
    const large = tenants[0]!;
    // The large tenant: finished sessions inserted directly (one router INSERT into its shard).
    const t0 = performance.now();
    await pool.query(
      `WITH c AS (INSERT INTO conversation (tenant_id, channel) VALUES ($1, 'drill') RETURNING id)
       INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, step_count, tool_call_count, finished_at)
       SELECT $1, c.id, '机械臂报警 E' || g || ' 怎么处理？', '请检查伺服驱动器 ' || g || ' 的电源并重启控制柜。', 'SUCCESS', 2, 1, now()
         FROM c, generate_series(1, $2::int) AS g`,
      [large.id, largeSessions],
    );
    process.stdout.write(`seeded ${largeSessions} sessions of the large tenant in ${Math.round(performance.now() - t0)} ms\n`);
    const placementBefore = await tenantPlacement(
      pool,
      tenants.map((t) => t.id),
    );
    const shardsBefore = await shardsPerWorker(pool);
    const othersBefore = await otherPlacements(target.database);

    const load = startLoadInChild<TrafficArgs, TrafficResult>(import.meta.url, {
      bases,
      tenants: tenants.map((t) => ({ id: t.id, client: t.client, operator: t.operator })),
    });
    // The load process takes a while to start on a busy machine: wait until every tenant has written, then 3 s more.
    for (let i = 0; i < 120; i++) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(DISTINCT tenant_id)::int AS n FROM diagnosis_session WHERE idempotency_key LIKE 'drill-%'`,
      );
      if (rows[0]!.n === tenants.length) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const steps: { step: string; start: number; end: number; ms: number; detail?: unknown }[] = [];
    const timed = async (step: string, run: () => Promise<unknown>) => {
      const start = Date.now();
      let detail: unknown;
      try {
        detail = await run();
      } catch (error) {
        detail = { error: (error as Error).message };
      }
      const end = Date.now();
      steps.push({ step, start, end, ms: end - start, detail });
      process.stdout.write(`${step}: ${end - start} ms ${JSON.stringify(detail)}\n`);
    };
    await timed('isolate', async () => {
      const { rows } = await ops.query<{ shard: string }>(
        `SELECT isolate_tenant_to_new_shard('conversation', $1::uuid, 'CASCADE', shard_transfer_mode => $2::citus.shard_transfer_mode)::text AS shard`,
        [large.id, mode],
      );
      return { newShard: rows[0]!.shard };
    });
    let jobId: string | undefined;
    await timed('rebalance', async () => {
      const { rows } = await ops.query<{ job: string | null }>(
        `SELECT citus_rebalance_start(shard_transfer_mode => $1::citus.shard_transfer_mode)::text AS job`,
        [mode],
      );
      jobId = rows[0]!.job ?? undefined;
      if (!jobId) return { moves: 0 };
      try {
        await ops.query('SELECT citus_rebalance_wait()');
      } catch (error) {
        // The wait was cancelled, not the job: stop it, or its moves go on in the background.
        await pool.query('SELECT citus_rebalance_stop()');
        throw error;
      }
      return { jobId };
    });
    // A failed move leaves its publications and slots until the deferred cleanup: run it now (this database only).
    await timed('cleanup', async () => (await pool.query(`CALL citus_cleanup_orphaned_resources()`)).command);
    await new Promise((resolve) => setTimeout(resolve, tailSeconds * 1000));
    load.stop();
    const { attempts, acks, knowledgeAcks } = await load.result;

    const tasks = jobId
      ? (
          await pool.query<{ status: string; command: string; message: string | null }>(
            `SELECT status::text, command, message FROM pg_dist_background_task WHERE job_id = $1 ORDER BY task_id`,
            [jobId],
          )
        ).rows
      : [];
    const [job] = jobId
      ? (
          await pool.query<{ state: string; ms: number }>(
            `SELECT state::text, round(extract(epoch FROM finished_at - started_at) * 1000)::int AS ms FROM pg_dist_background_job WHERE job_id = $1`,
            [jobId],
          )
        ).rows
      : [];
    const checks = await checkWrites(pool, acks, large.id);
    const othersAfter = await otherPlacements(target.database);
    const compared = Object.keys(othersBefore).filter((d) => d in othersAfter);
    const phaseOf = (at: number): string => {
      for (const s of steps) if (at >= s.start && at <= s.end) return s.step;
      return at < steps[0]!.start ? 'before' : 'after';
    };
    const errors: Record<string, Record<string, number>> = {};
    // Per step and kind: requests answered ok, failed, and the slowest (ms), for the large tenant and the others apart.
    const activity: Record<string, Record<string, { ok: number; failed: number; maxMs: number }>> = {};
    // Per step: each tenant's slowest write (ingest, feedback, re-upload), to see whose writes a move held up.
    const slowestWrite: Record<string, number[]> = {};
    for (const a of attempts) {
      const phase = phaseOf(a.at);
      if (a.kind !== 'chat') (slowestWrite[phase] ??= tenants.map(() => 0))[a.tenant] = Math.max(slowestWrite[phase]![a.tenant]!, a.ms);
      const row = `${a.kind} (${a.tenant === 0 ? 'large tenant' : 'others'})`;
      const cell = (activity[phase] ??= {})[row] ?? { ok: 0, failed: 0, maxMs: 0 };
      activity[phase][row] = { ok: cell.ok + (a.error ? 0 : 1), failed: cell.failed + (a.error ? 1 : 0), maxMs: Math.max(cell.maxMs, a.ms) };
      if (!a.error) continue;
      const k = `${a.kind}: ${a.error}`;
      errors[phase] = { ...errors[phase], [k]: (errors[phase]?.[k] ?? 0) + 1 };
    }
    const count = (kind: string) => acks.filter((a) => a.kind === kind).length;
    const out = {
      bench: 'citus-drill',
      at: new Date().toISOString(),
      mode,
      tenants: tenantCount,
      largeSessions,
      shardCount,
      steps: steps.map(({ step, ms, detail }) => ({ step, ms, detail })),
      rebalanceJob: job,
      rebalanceTasks: tasks.map((t) => ({ status: t.status, command: t.command, message: t.message })),
      placementBefore: tally(placementBefore.map((p) => p.worker)),
      placementAfter: tally(
        (
          await tenantPlacement(
            pool,
            tenants.map((t) => t.id),
          )
        ).map((p) => p.worker),
      ),
      shardsBefore,
      shardsAfter: await shardsPerWorker(pool),
      acknowledged: { ingest: count('ingest'), feedback: count('feedback'), chat: count('chat'), knowledge: knowledgeAcks },
      attempts: attempts.length,
      activity,
      slowestWrite,
      errors,
      logs,
      checks: {
        ...checks,
        otherDatabasesUntouched: compared.every((d) => othersBefore[d] === othersAfter[d]),
        otherDatabasesCompared: compared.length,
      },
    };
    const file = writeResult('citus-drill', out);
    process.stdout.write(`${JSON.stringify(out, null, 1)}\nwritten to ${file}\n`);
  } finally {
    await pool.end();
    await stopProcesses(children);
    await target.drop();
  }
}

/**
 * A logical tenant isolation (a non-blocking split) decodes the source shards' WAL with Citus's own output plugin,
 * which PostgreSQL's `output_plugin_libraries` (15.20 and later minor releases) refuses unless listed. Listed here for
 * this database only, on every node (its walsenders read the database's settings; set from each node's `postgres`
 * database, where Citus does not refuse ALTER DATABASE on a worker); a production cluster lists it in
 * every node's configuration (docs/SCALING.md "Operations runbook").
 */
async function allowCitusDecoder(database: string): Promise<void> {
  const head = new pg.Client({ connectionString: withDatabase(citusClusterUrl(), database) });
  await head.connect();
  const { rows } = await head.query<{ url: string }>(
    `SELECT 'postgres://postgres@' || nodename || ':' || nodeport || '/postgres' AS url FROM pg_dist_node WHERE noderole = 'primary'`,
  );
  await head.end();
  for (const { url } of rows) {
    const node = new pg.Client({ connectionString: url });
    await node.connect();
    try {
      const { rows: known } = await node.query(`SELECT 1 FROM pg_settings WHERE name = 'output_plugin_libraries'`);
      // A list setting: unquoted items (a quoted 'a, b' would be one item named "a, b").
      if (known.length) await node.query(`ALTER DATABASE ${database} SET output_plugin_libraries = pgoutput, test_decoding, citus`);
    } finally {
      await node.end();
    }
  }
}

function tally(values: string[]): Record<string, number> {
  return values.reduce<Record<string, number>>((m, v) => ({ ...m, [v]: (m[v] ?? 0) + 1 }), {});
}

async function shardsPerWorker(pool: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ worker: string; n: number }>(
    `SELECT nodename || ':' || nodeport AS worker, count(DISTINCT shardid)::int AS n FROM citus_shards WHERE colocation_id = (
       SELECT colocation_id FROM citus_tables WHERE table_name = 'conversation'::regclass) AND table_name = 'conversation'::regclass GROUP BY 1 ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.worker, r.n]));
}

/** Every acknowledged write stored exactly once; no duplicate posting; the large tenant alone in its shard. */
async function checkWrites(pool: pg.Pool, acks: Ack[], largeTenant: string): Promise<Record<string, boolean | number>> {
  const ingests = acks.filter((a) => a.kind === 'ingest');
  const chats = acks.filter((a) => a.kind === 'chat');
  const posted = acks.filter((a) => a.kind === 'feedback');
  const one = async (sql: string, params: unknown[]) => (await pool.query<{ n: number; m?: number }>(sql, params)).rows[0]!;
  const byId = await one(`SELECT count(*)::int AS n FROM diagnosis_session WHERE id = ANY($1::uuid[])`, [ingests.map((a) => a.id)]);
  const byKey = await one(
    `SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS m FROM diagnosis_session WHERE idempotency_key = ANY($1::text[])`,
    [ingests.map((a) => a.key)],
  );
  const chatStored = await one(`SELECT count(*)::int AS n FROM diagnosis_session WHERE id = ANY($1::uuid[])`, [chats.map((a) => a.id)]);
  const feedbackStored = await one(
    `SELECT count(*)::int AS n FROM session_feedback f JOIN unnest($1::uuid[], $2::text[]) AS p(session_id, feedback)
        ON p.session_id = f.session_id AND p.feedback = f.feedback`,
    [posted.map((a) => a.id), posted.map((a) => a.value)],
  );
  const duplicatePostings = await one(
    `SELECT count(*)::int AS n FROM (SELECT tenant_id, document_id, chunk_index, term FROM knowledge_term GROUP BY 1, 2, 3, 4 HAVING count(*) > 1) d`,
    [],
  );
  const isolated = await one(
    `SELECT count(*)::int AS n FROM pg_dist_shard WHERE shardid = get_shard_id_for_distribution_column('conversation', $1::uuid)
        AND shardminvalue = shardmaxvalue`,
    [largeTenant],
  );
  return {
    ingestStoredOnce: byId.n === ingests.length && byKey.n === ingests.length && byKey.m === ingests.length,
    feedbackStored: feedbackStored.n === posted.length,
    chatStored: chatStored.n === chats.length,
    duplicatePostings: duplicatePostings.n,
    largeTenantIsolated: isolated.n === 1,
  };
}

benchEntry(traffic, main);
