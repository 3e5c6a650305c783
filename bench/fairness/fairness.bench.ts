/**
 * Noisy-neighbour benchmark (issue 29, finding 4): while tenant A imports BENCH_DOCS (10,000) documents
 * through `POST /admin/knowledge/imports` (~220 bytes each, ~2.2 MB, the finding's size), tenant B's
 * `GET /api/sessions/:id` and `POST /ai/chat` (no LLM, demo intents and knowledge) are measured from a
 * load generator in its own process (`load-client.ts`, open loop), first idle (the same-run baseline),
 * then during the import; plus the import's documents/s and what `/health` said meanwhile.
 * Bars (issue 29, item 3): session read p95 ≤ 100 ms and chat p95 ≤ 2× idle during the import, the import
 * at ≥ 50 documents/s, no 5xx. Exits non-zero when a bar is missed.
 *
 * The app runs as the default install does: the embedded database (PGlite, in a temporary DATA_DIR) and the
 * job worker in the API process. BENCH_DB=postgres runs it on a fresh database on BENCH_POSTGRES_URL instead.
 * Env: BENCH_DB (pglite), BENCH_DOCS (10000), BENCH_IDLE_SECONDS (20), BENCH_SESSION_RPS (20), BENCH_CHAT_RPS (2),
 *      BENCH_AFTER_SECONDS (20: the same load once the import is done), BENCH_MAX_IMPORT_SECONDS (1200: the import phase stops there and counts as missed).
 * Run: npm run bench:fairness
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEMO_INTENT_RULES } from '@arbiter/intent';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { prng } from '@arbiter/testing';
import { createApp } from '../../apps/api/src/create-app.js';
import { dropDatabase, http, withDatabase } from '../support/bench-http.js';
import type { RouteStats } from './load-client.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN = 'bench-admin-token-0123456789abcdef';
const kind = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'pglite';
const totalDocs = Number(process.env.BENCH_DOCS ?? 10_000);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const sessionRps = Number(process.env.BENCH_SESSION_RPS ?? 20);
const chatRps = Number(process.env.BENCH_CHAT_RPS ?? 2);
const afterSeconds = Number(process.env.BENCH_AFTER_SECONDS ?? 20);
const maxImportSeconds = Number(process.env.BENCH_MAX_IMPORT_SECONDS ?? 1200);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BARS = { sessionP95Ms: 100, chatP95Ratio: 2, documentsPerSecond: 50 };

/** Tenant B's chat mix: grounded answers, clarifications, rule answers, hand-offs (Chinese and English). */
const MESSAGES = [
  '机械臂报警 E201 怎么处理？',
  '示教器黑屏怎么办',
  'How do I upgrade the firmware?',
  '怎么申请退款',
  'E310 碰撞报警误报',
  '你好',
  '转人工',
  'E202 编码器报警',
];

interface PhaseResult {
  name: string;
  sessions: RouteStats;
  chat: RouteStats;
}

/** Tenant A's import: short support notes of ~220 bytes (JSON), each distinct. */
function importDocuments(n: number): unknown[] {
  const random = prng(29);
  const words = [
    'controller',
    'encoder',
    'joint',
    'cable',
    'fan',
    'firmware',
    'pendant',
    'servo',
    'alarm',
    'reset',
    '电源',
    '急停',
    '伺服',
    '编码器',
    '示教器',
  ];
  return Array.from({ length: n }, (_, i) => ({
    domain: `notes-${i % 10}`,
    filePath: `notes/n-${i}.md`,
    title: `Note ${i}`,
    content: `Step ${i}: ${Array.from({ length: 14 }, () => words[Math.floor(random() * words.length)]).join(' ')}. Check item ${i % 97} before restart.`,
  }));
}

async function main(): Promise<void> {
  let databaseUrl: string | undefined;
  let dataDir: string | undefined;
  let dbName: string | undefined;
  if (kind === 'postgres') {
    dbName = `arbiter_bench_fairness_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    databaseUrl = withDatabase(adminUrl, dbName);
  } else dataDir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-fairness-'));

  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir }),
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'true',
      SEED_DEMO: 'false',
      LLM_PROVIDER: 'none',
      SWAGGER_ENABLED: 'false',
      BODY_LIMIT_BYTES: String(4 * 1024 * 1024),
    },
    logLevel: 'error',
  });
  let client: ChildProcess | undefined;
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = await app.getUrl();
    const tenant = async (name: string) => {
      const res = await http<{ id: string; apiKeys: { client: string; operator: string } }>(
        base,
        'POST',
        '/admin/tenants',
        { authorization: `Bearer ${ADMIN}` },
        { name },
      );
      if (res.status !== 201) throw new Error(`tenant: ${res.status}`);
      return { client: { 'x-api-key': res.json.apiKeys.client }, operator: { 'x-api-key': res.json.apiKeys.operator }, clientKey: res.json.apiKeys.client };
    };
    const a = await tenant('importer');
    const b = await tenant('neighbour');
    for (const rule of DEMO_INTENT_RULES) {
      const r = await http(base, 'POST', '/admin/intent-rules', b.operator, rule);
      if (r.status !== 201) throw new Error(`intent rule: ${r.status}`);
    }
    const bulk = await http<{ summary: { failed: number } }>(base, 'POST', '/admin/knowledge/documents/bulk', b.operator, DEMO_KNOWLEDGE);
    if (bulk.status !== 200 || bulk.json.summary.failed) throw new Error(`knowledge: ${bulk.status}`);
    const sessionIds: string[] = [];
    for (const message of MESSAGES) {
      const r = await http<{ sessionId: string }>(base, 'POST', '/ai/chat', b.client, { message });
      if (r.status !== 200) throw new Error(`chat: ${r.status}`);
      sessionIds.push(r.json.sessionId);
    }

    client = fork(path.join(root, 'bench/fairness/load-client.ts'), [], {
      cwd: root,
      execArgv: ['--import', './bench/support/register.mjs'],
      env: {
        ...process.env,
        TARGET_URL: base,
        CLIENT_KEY: b.clientKey,
        SESSION_IDS: JSON.stringify(sessionIds),
        CHAT_MESSAGES: JSON.stringify(MESSAGES),
        SESSION_RPS: String(sessionRps),
        CHAT_RPS: String(chatRps),
      },
    });
    const load = client;
    const next = <T>(type: string) =>
      new Promise<T>((resolve) => load.once('message', (m: { type: string }) => (m.type === type ? resolve(m as T) : undefined)));
    await next('ready');
    const phase = async (name: string, during: () => Promise<void>): Promise<PhaseResult> => {
      const started = next('started');
      load.send({ type: 'phase', name });
      await started;
      await during();
      const result = next<PhaseResult>('result');
      load.send({ type: 'stop' });
      return result;
    };
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

    process.stdout.write(`${kind}: warm-up 5 s, idle ${idleSeconds} s …\n`);
    await phase('warm-up', () => sleep(5_000));
    const idle = await phase('idle', () => sleep(idleSeconds * 1000));

    const documents = importDocuments(totalDocs);
    const body = JSON.stringify(documents);
    let importSeconds = Number.NaN;
    let importStatus = 'unknown';
    let done = 0;
    const health: Record<string, number> = {};
    process.stdout.write(`import of ${totalDocs} documents (${(Buffer.byteLength(body) / 1e6).toFixed(1)} MB) for tenant A …\n`);
    const during = await phase('import', async () => {
      const t0 = performance.now();
      const res = await fetch(`${base}/admin/knowledge/imports`, { method: 'POST', headers: { ...a.operator, 'content-type': 'application/json' }, body });
      const started = (await res.json()) as { importId: string };
      if (res.status !== 202) throw new Error(`import: ${res.status} ${JSON.stringify(started)}`);
      for (;;) {
        await sleep(1000);
        const h = await http<{ database?: { status: string } }>(base, 'GET', '/health', {});
        const key = h.status === 200 ? (h.json.database?.status ?? '?') : String(h.status);
        health[key] = (health[key] ?? 0) + 1;
        const s = await http<{ status: string; done: number }>(base, 'GET', `/admin/knowledge/imports/${started.importId}`, a.operator);
        done = s.json.done;
        importStatus = s.json.status;
        const elapsed = (performance.now() - t0) / 1000;
        process.stdout.write(`\r  ${done}/${totalDocs} after ${elapsed.toFixed(0)} s`);
        if (importStatus === 'succeeded' || importStatus === 'failed') {
          importSeconds = elapsed;
          break;
        }
        if (elapsed > maxImportSeconds) {
          importSeconds = elapsed;
          break;
        }
      }
      process.stdout.write('\n');
    });
    // After the import (same load, idle app): separates what the import's work costs the neighbour from
    // what tenant A's data alone costs it (e.g. a shared vector index that now holds A's chunks).
    const after = afterSeconds > 0 ? await phase('after', () => sleep(afterSeconds * 1000)) : undefined;
    const finished = importStatus === 'succeeded' && done === totalDocs;
    const documentsPerSecond = Math.round((done / importSeconds) * 10) / 10;
    const serverErrors = (r: RouteStats) =>
      Object.entries(r.statuses).reduce((s, [code, n]) => s + (Number(code) >= 500 ? n : 0), 0) +
      (r.requests - Object.values(r.statuses).reduce((s, n) => s + n, 0));
    const chatRatio = Math.round((during.chat.p95 / idle.chat.p95) * 100) / 100;
    const verdict = {
      sessionP95: { value: during.sessions.p95, bar: `<= ${BARS.sessionP95Ms} ms`, pass: during.sessions.p95 <= BARS.sessionP95Ms },
      chatP95: { value: chatRatio, bar: `<= ${BARS.chatP95Ratio}x idle (${idle.chat.p95} ms)`, pass: chatRatio <= BARS.chatP95Ratio },
      documentsPerSecond: {
        value: documentsPerSecond,
        bar: `>= ${BARS.documentsPerSecond} and finished`,
        pass: finished && documentsPerSecond >= BARS.documentsPerSecond,
      },
      serverErrors: {
        value: serverErrors(during.sessions) + serverErrors(during.chat),
        bar: '0',
        pass: serverErrors(during.sessions) + serverErrors(during.chat) === 0,
      },
    };
    const out = {
      bench: 'fairness',
      at: new Date().toISOString(),
      database: kind,
      node: process.version,
      load: { sessionRps, chatRps },
      import: { documents: totalDocs, done, status: importStatus, seconds: Math.round(importSeconds * 10) / 10, documentsPerSecond },
      idle,
      during,
      after,
      healthDuringImport: health,
      verdict,
    };
    const dir = path.join(root, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `fairness-${kind}-${out.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    const row = (label: string, r: RouteStats) =>
      `${label.padEnd(28)} p50 ${r.p50} / p95 ${r.p95} / p99 ${r.p99} / max ${r.max} ms  (${r.requests} requests, ${r.errors} errors)`;
    const mark = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
    process.stdout.write(
      [
        '',
        row('idle   GET /api/sessions/:id', idle.sessions),
        row('idle   POST /ai/chat', idle.chat),
        row('import GET /api/sessions/:id', during.sessions),
        row('import POST /ai/chat', during.chat),
        ...(after ? [row('after  GET /api/sessions/:id', after.sessions), row('after  POST /ai/chat', after.chat)] : []),
        `import: ${done}/${totalDocs} documents in ${importSeconds.toFixed(1)} s = ${documentsPerSecond} documents/s (${importStatus}); /health database during it: ${JSON.stringify(health)}`,
        `bars: session p95 ${verdict.sessionP95.value} ms ${verdict.sessionP95.bar} → ${mark(verdict.sessionP95.pass)}; chat p95 ${during.chat.p95} ms = ${chatRatio}x ${verdict.chatP95.bar} → ${mark(verdict.chatP95.pass)}; ` +
          `import ${documentsPerSecond} documents/s ${verdict.documentsPerSecond.bar} → ${mark(verdict.documentsPerSecond.pass)}; 5xx ${verdict.serverErrors.value} → ${mark(verdict.serverErrors.pass)}`,
        `written to ${path.relative(root, file)}`,
        '',
      ].join('\n'),
    );
    if (!Object.values(verdict).every((v) => v.pass)) process.exitCode = 1;
    load.send({ type: 'exit' });
  } finally {
    client?.kill();
    await app.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (dbName) await dropDatabase(adminUrl, dbName);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
