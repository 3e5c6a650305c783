/**
 * Retrieval at scale (issue 16): a labelled FAQ set (StackFAQ when present, else BANKING77-FAQ; see
 * quality-sets.ts) imported through the bulk API, its hit@5 measured, then at least BENCH_CHUNKS
 * (100,000) distractor chunks added to the same tenant through the same import code (real sentences
 * from the other shared datasets, paragraphs of 4; the HNSW index is rebuilt afterwards as
 * for a bulk load), and then:
 *  - hit@5 again (bar: drops <= 3 points),
 *  - ANN recall@5 of the vector search against exact search on the set's questions,
 *  - HTTP latency of POST /ai/knowledge/lookup at BENCH_CONCURRENCY (16) connections for
 *    BENCH_SECONDS (20) s from a load generator in its own process, with GET /health as the
 *    same-run baseline (bar: p95 <= 30 ms on PostgreSQL),
 *  - the memory of this process, which serves the API (issue 27: RSS at 100k chunks <= 1.5 GB for the API process):
 *    RSS sampled every 500 ms, its peak over the whole run and over the lookup load, and the RSS once the load is done.
 *    The process also ran the distractor load, so the figures are an upper bound of an API process's; with
 *    BENCH_DB=pglite they include the embedded database.
 * Env: BENCH_DB=postgres|pglite, BENCH_CHUNKS, BENCH_CONCURRENCY, BENCH_SECONDS, BENCH_SET.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { asTenantId } from '@arbiter/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider, isHashingEmbedding } from '@arbiter/llm';
import { createHnswIndexSql, hnswIndexName, KnowledgeService, VectorSearchRepository } from '@arbiter/retrieval';
import { createApp } from '../../apps/api/src/create-app.js';
import { benchDb, createTarget, rng, writeResult } from './common.js';
import { banking77Faq, type FaqSet, stackFaq } from './quality-sets.js';
import { passThroughEnv } from '../support/in-process-api.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const kind = benchDb();
const distractorChunks = Number(process.env.BENCH_CHUNKS ?? 100_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const SHARED = process.env.BENCH_SHARED_DATASETS ?? path.resolve('..', 'shared', 'datasets');

/** Real sentences for distractors: every shared intent set except the one under test. */
function sentencePool(exclude: string): string[] {
  const files: Record<string, string[]> = {
    clinc150: ['clinc150/train.jsonl', 'clinc150/val.jsonl', 'clinc150/test.jsonl'],
    banking77: ['banking77/train.jsonl', 'banking77/test.jsonl'],
    smp2017: ['smp2017/smp2017_train.jsonl', 'smp2017/smp2017_val.jsonl', 'smp2017/smp2017_test.jsonl'],
  };
  const out: string[] = [];
  for (const [name, list] of Object.entries(files)) {
    if (exclude.startsWith(name)) continue;
    for (const f of list)
      for (const line of readFileSync(path.join(SHARED, f), 'utf8').split('\n')) if (line.trim()) out.push((JSON.parse(line) as { text: string }).text);
  }
  return out;
}

async function hitAt5(base: string, key: string, set: FaqSet): Promise<number> {
  const labelOf = new Map(set.documents.map((d) => [d.filePath, d.label]));
  const questions = set.questions.filter((q) => q.split === 'test' && q.answerable);
  let hits = 0;
  for (const q of questions) {
    const res = await fetch(`${base}/ai/knowledge/lookup`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: `h-${randomUUID()}`, query: q.text, topK: 5 }),
    });
    const body = (await res.json()) as { results: { filePath: string }[] };
    if (body.results.some((r) => labelOf.get(r.filePath) === q.label)) hits++;
  }
  return (100 * hits) / questions.length;
}

const MB = 1024 * 1024;

/** RSS of this process sampled every 500 ms: the peak since the start and since the last {@link RssSampler.mark}. */
class RssSampler {
  private peak = 0;
  private peakSinceMark = 0;
  private readonly timer = setInterval(() => this.sample(), 500);

  constructor() {
    this.timer.unref();
  }

  sample(): number {
    const rss = process.memoryUsage().rss;
    this.peak = Math.max(this.peak, rss);
    this.peakSinceMark = Math.max(this.peakSinceMark, rss);
    return rss;
  }

  mark(): void {
    this.peakSinceMark = this.sample();
  }

  report(): { peakMb: number; peakSinceMarkMb: number; nowMb: number } {
    const now = this.sample();
    return { peakMb: Math.round(this.peak / MB), peakSinceMarkMb: Math.round(this.peakSinceMark / MB), nowMb: Math.round(now / MB) };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function main(): Promise<void> {
  const rss = new RssSampler();
  const set = (process.env.BENCH_SET === 'banking77-faq' ? null : stackFaq()) ?? banking77Faq();
  const target = await createTarget(kind, concurrency + 40);
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: target.url,
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      DB_POOL_MAX: String(concurrency + 4),
      SWAGGER_ENABLED: 'false',
      ...passThroughEnv(),
    },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const pool = new pg.Pool({ connectionString: target.url, max: 2 });
  try {
    const created = await fetch(`${base}/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const tenant = (await created.json()) as { id: string; apiKeys: { client: string; operator: string } };
    const imported = await fetch(`${base}/admin/knowledge/documents/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKeys.operator, 'content-type': 'application/json' },
      body: JSON.stringify(set.documents.map(({ filePath, title, content, domain }) => ({ filePath, title, content, domain }))),
    });
    if (imported.status !== 200) throw new Error(`import failed: ${imported.status}`);
    const before = await hitAt5(base, tenant.apiKeys.client, set);
    console.log(`${set.name}: ${set.documents.length} documents, hit@5 ${before.toFixed(1)} without distractors`);

    // Distractors through the import code (chunking, embedding, lexical index), HNSW rebuilt after.
    const provider = app.get<EmbeddingProvider>(EMBEDDING_PROVIDER);
    await pool.query(`DROP INDEX IF EXISTS ${hnswIndexName(provider.dimension)}`);
    const random = rng(11);
    const sentences = sentencePool(set.name);
    const knowledge = app.get(KnowledgeService);
    const t0 = performance.now();
    const PER_DOC = 10;
    let loaded = 0;
    for (let d0 = 0; loaded < distractorChunks; d0 += 200) {
      const batch = Array.from({ length: 200 }, (_, i) => {
        // One chunk per paragraph: the chunker splits on blank lines below the chunk size.
        const paragraphs = Array.from({ length: PER_DOC }, () => Array.from({ length: 4 }, () => sentences[Math.floor(random() * sentences.length)]).join(' '));
        const content = paragraphs.join('\n\n');
        return {
          domain: 'distractors',
          filePath: `distractor/${d0 + i}.md`,
          title: `Note ${d0 + i}`,
          content,
          keywords: [],
          metadata: {},
          contentHash: `d${d0 + i}`,
        };
      });
      const results = await knowledge.upsertMany(asTenantId(tenant.id), batch);
      for (const r of results) {
        if (r instanceof Error) throw r;
        loaded += r.document.chunkCount;
      }
      if ((d0 / 200) % 10 === 0) process.stdout.write(`\rdistractor chunks ${loaded}/${distractorChunks}`);
    }
    const loadSeconds = (performance.now() - t0) / 1000;
    const { rows: counted } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM knowledge_chunk WHERE tenant_id = $1', [tenant.id]);
    const t1 = performance.now();
    const client = await pool.connect();
    try {
      if (kind === 'postgres') await client.query(`SET maintenance_work_mem = '1GB'`);
      await client.query(createHnswIndexSql(provider.dimension));
      await client.query('ANALYZE');
    } finally {
      client.release();
    }
    const indexSeconds = (performance.now() - t1) / 1000;
    console.log(
      `\n${counted[0].n} chunks in the tenant; distractors loaded in ${loadSeconds.toFixed(0)} s (${(loaded / loadSeconds).toFixed(0)} chunks/s, HNSW index dropped), HNSW build ${indexSeconds.toFixed(0)} s`,
    );

    const after = await hitAt5(base, tenant.apiKeys.client, set);
    console.log(`hit@5 ${after.toFixed(1)} with distractors (drop ${(before - after).toFixed(1)} points, bar <= 3)`);

    // ANN recall@5 of the HNSW index's search against exact search. In the hashing embedder's space lookups do not use
    // it: they rank their lexical candidates by exact distance (docs/hot-paths.md "No ANN search in the hashing embedder's space").
    const vectors = app.get(VectorSearchRepository);
    const space = { model: provider.id, dim: provider.dimension };
    const recallQuestions = set.questions.filter((q) => q.split === 'test').slice(0, 200);
    let recall = 0;
    for (const q of recallQuestions) {
      const v = await provider.embedQuery(q.text);
      const approx = (await vectors.nearestChunks(asTenantId(tenant.id), space, v, 60)).slice(0, 5);
      const exact = await vectors.nearestChunksExact(asTenantId(tenant.id), space, v, 5);
      const truth = new Set(exact.map((h) => `${h.documentId}:${h.chunkIndex}`));
      recall += approx.filter((h) => truth.has(`${h.documentId}:${h.chunkIndex}`)).length / Math.max(1, truth.size);
    }
    const recallAt5 = recall / recallQuestions.length;
    console.log(
      `ANN recall@5 ${recallAt5.toFixed(3)} (${recallQuestions.length} questions)${isHashingEmbedding(provider.id) ? ' — the index only: lookups in the hashing space rank their lexical candidates by exact distance' : ''}`,
    );

    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-load-'));
    const queriesFile = path.join(dir, 'queries.json');
    writeFileSync(queriesFile, JSON.stringify(set.questions.map((q) => q.text)));
    rss.mark();
    const load = await new Promise<{ lookup: Record<string, number>; health: Record<string, number> }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', './bench/support/register.mjs', 'bench/retrieval/load-client.ts'], {
        env: {
          ...process.env,
          TARGET_URL: base,
          CLIENT_KEY: tenant.apiKeys.client,
          QUERIES_FILE: queriesFile,
          CONCURRENCY: String(concurrency),
          SECONDS: String(seconds),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop() as string)) : reject(new Error(`load client exited ${code}`))));
    });
    const l = load.lookup;
    console.log(
      `lookup at ${concurrency} connections: ${l.rps.toFixed(0)} req/s, p50 ${l.p50.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, errors ${l.errors} (bar p95 <= 30 ms); GET /health same run: ${load.health.rps.toFixed(0)} req/s, p95 ${load.health.p95.toFixed(1)} ms`,
    );
    const memory = rss.report();
    console.log(
      `memory of this process (the API${kind === 'pglite' ? ' and its embedded database' : ''}; it also ran the distractor load) at ${Number(counted[0].n)} chunks: RSS peak during the lookup load ${memory.peakSinceMarkMb} MB, after it ${memory.nowMb} MB, peak of the whole run ${memory.peakMb} MB (bar: API process <= 1536 MB)`,
    );
    const result = {
      benchmark: 'retrieval-lookup',
      memory,
      db: kind,
      set: set.name,
      chunks: Number(counted[0].n),
      distractorChunks: loaded,
      hitAt5Before: before,
      hitAt5After: after,
      recallAt5,
      loadSeconds,
      indexSeconds,
      concurrency,
      seconds,
      load,
      node: process.version,
    };
    console.log(`written ${writeResult(`retrieval-lookup-${kind}`, result)}`);
  } finally {
    rss.stop();
    await pool.end();
    await app.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
