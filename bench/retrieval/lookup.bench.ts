/**
 * Retrieval lookup benchmark (issue 4): N chunks (default 100,000, 384-dim, local embedder) in one
 * tenant, then
 *  - HTTP latency of POST /ai/knowledge/lookup at C concurrent keep-alive connections (default 16),
 *  - HNSW recall@5 against exact search on 200 queries,
 *  - HNSW build time.
 * Env: BENCH_DB=postgres|pglite (default postgres), BENCH_CHUNKS, BENCH_CONCURRENCY (16),
 *      BENCH_SECONDS (20), BENCH_POSTGRES_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Run: npm run bench:retrieval   (BENCH_DB=pglite BENCH_CHUNKS=20000 npm run bench:retrieval)
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { createHnswIndexSql, hnswIndexName, KnowledgeRepository, toVectorLiteral } from '@arbiter/retrieval';
import { asTenantId } from '@arbiter/common';
import { createApp } from '../../apps/api/src/create-app.js';
import { benchDb, createTarget, percentile, rng, sentence, vocabulary, writeResult } from './common.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const kind = benchDb();
const totalChunks = Number(process.env.BENCH_CHUNKS ?? 100_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const CHUNKS_PER_DOC = 10;
const DOMAINS = 20;

async function main(): Promise<void> {
  const target = await createTarget(kind, concurrency + 40);
  const random = rng(42);
  const vocab = vocabulary(3000, random);
  const provider = new LocalEmbeddingProvider({ dimension: 384 });
  const app = await createApp({
    env: { NODE_ENV: 'production', DATABASE_URL: target.url, ADMIN_TOKEN: ADMIN, JOBS_ENABLED: 'false', SEED_DEMO: 'false', DB_POOL_MAX: String(concurrency + 4), EMBEDDING_DIMENSION: '384', SWAGGER_ENABLED: 'false' },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const pool = new pg.Pool({ connectionString: target.url, max: 4 });
  try {
    const created = await fetch(`${base}/admin/tenants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) });
    const tenant = (await created.json()) as { id: string; apiKeys: { client: string } };

    // 1. Load: documents and chunks straight into the tables (the index is built afterwards, as for a bulk load).
    await pool.query(`DROP INDEX IF EXISTS ${hnswIndexName(384)}`);
    const loadStarted = performance.now();
    let embedMs = 0;
    const samples: string[] = [];
    const docs = Math.ceil(totalChunks / CHUNKS_PER_DOC);
    const BATCH_DOCS = 200;
    for (let d0 = 0; d0 < docs; d0 += BATCH_DOCS) {
      const n = Math.min(BATCH_DOCS, docs - d0);
      const paths = Array.from({ length: n }, (_, i) => `bench/doc-${d0 + i}.md`);
      const texts = Array.from({ length: n * CHUNKS_PER_DOC }, () => sentence(vocab, 40, random));
      if (samples.length < 400) samples.push(texts[Math.floor(random() * texts.length)]);
      const { rows } = await pool.query<{ id: string; file_path: string }>(
        `INSERT INTO knowledge_document (tenant_id, domain, file_path, title, content, keywords, metadata, content_hash, chunk_count)
         SELECT $1, 'domain-' || (t.i % ${DOMAINS}), t.p, 'Bench document ' || t.i, t.p, '[]', '{}', md5(t.p) || md5(t.p), ${CHUNKS_PER_DOC}
           FROM unnest($2::text[], $3::int[]) AS t(p, i) RETURNING id, file_path`,
        [tenant.id, paths, paths.map((_, i) => d0 + i)],
      );
      const idByPath = new Map(rows.map((r) => [r.file_path, r.id]));
      const e0 = performance.now();
      const vectors = await provider.embedDocuments(texts);
      embedMs += performance.now() - e0;
      const docIds: string[] = [];
      const domains: string[] = [];
      const idx: number[] = [];
      paths.forEach((p, i) => {
        for (let k = 0; k < CHUNKS_PER_DOC; k++) {
          docIds.push(idByPath.get(p) as string);
          domains.push(`domain-${(d0 + i) % DOMAINS}`);
          idx.push(k);
        }
      });
      await pool.query(
        `INSERT INTO knowledge_chunk (tenant_id, document_id, domain, chunk_index, content, embedding, embedding_model, embedding_dim)
         SELECT $1, t.d, t.dom, t.k, t.c, t.e::vector, $2, 384 FROM unnest($3::uuid[], $4::text[], $5::int[], $6::text[], $7::text[]) AS t(d, dom, k, c, e)`,
        [tenant.id, provider.id, docIds, domains, idx, texts, vectors.map((v) => toVectorLiteral(v))],
      );
      if ((d0 / BATCH_DOCS) % 10 === 0) process.stdout.write(`\rloaded ${Math.min(totalChunks, (d0 + n) * CHUNKS_PER_DOC)} chunks`);
    }
    const loadMs = performance.now() - loadStarted;
    process.stdout.write('\n');

    const i0 = performance.now();
    const client = await pool.connect();
    try {
      if (kind === 'postgres') await client.query(`SET maintenance_work_mem = '1GB'`);
      await client.query(createHnswIndexSql(384));
      await client.query('ANALYZE knowledge_chunk');
      await client.query('ANALYZE knowledge_document');
    } finally {
      client.release();
    }
    const indexMs = performance.now() - i0;
    console.log(`load ${(loadMs / 1000).toFixed(1)} s (embedding ${(embedMs / 1000).toFixed(1)} s), HNSW build ${(indexMs / 1000).toFixed(1)} s`);

    // 2. Recall@5 of the HNSW search against exact search, 200 queries of each kind. The lookup asks the
    //    index for max(50, 10·topK) chunks and keeps the best; so does this measurement.
    const repo = app.get(KnowledgeRepository);
    const tid = asTenantId(tenant.id);
    const space = { model: provider.id, dim: 384 };
    const QUERIES = 200;
    const recall = async (texts: string[]): Promise<number> => {
      let sum = 0;
      for (const text of texts) {
        const v = await provider.embedQuery(text);
        const approx = (await repo.nearestChunks(tid, space, v, 50)).slice(0, 5);
        const exact = await repo.nearestChunksExact(tid, space, v, 5);
        const truth = new Set(exact.map((h) => `${h.documentId}:${h.chunkIndex}`));
        sum += approx.filter((h) => truth.has(`${h.documentId}:${h.chunkIndex}`)).length / Math.max(1, truth.size);
      }
      return sum / texts.length;
    };
    // Realistic: a query made of 12 consecutive words of a stored chunk (a user asking about a document).
    const recallAt5 = await recall(samples.slice(0, QUERIES).map((t) => { const w = t.split(' '); const at = Math.floor(random() * (w.length - 12)); return w.slice(at, at + 12).join(' '); }));
    // Adversarial: 8 random vocabulary words (no true neighbour; all distances nearly equal).
    const recallAt5Random = await recall(Array.from({ length: QUERIES }, () => sentence(vocab, 8, random)));
    console.log(`recall@5 = ${recallAt5.toFixed(4)} (chunk-derived queries), ${recallAt5Random.toFixed(4)} (random-word queries), ${QUERIES} each`);

    // 3. HTTP latency at `concurrency` keep-alive connections.
    const queries = Array.from({ length: 500 }, () => sentence(vocab, 6, random));
    const fire = async (i: number): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${base}/ai/knowledge/lookup`, {
        method: 'POST',
        headers: { 'x-api-key': tenant.apiKeys.client, 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: `bench-${i}`, query: queries[i % queries.length], topK: 5 }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`lookup failed: ${res.status}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < 100; i++) await fire(i); // warm-up
    const latencies: number[] = [];
    let counter = 1000;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) latencies.push(await fire(counter++));
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const result = {
      benchmark: 'retrieval-lookup',
      db: kind,
      chunks: totalChunks,
      documents: docs,
      dimension: 384,
      concurrency,
      seconds: elapsed,
      requests: latencies.length,
      throughputRps: latencies.length / elapsed,
      latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] },
      recallAt5,
      recallAt5RandomQueries: recallAt5Random,
      recallQueries: QUERIES,
      loadSeconds: loadMs / 1000,
      hnswBuildSeconds: indexMs / 1000,
      node: process.version,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(`written ${writeResult(`retrieval-lookup-${kind}`, result)}`);
  } finally {
    await pool.end();
    await app.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
