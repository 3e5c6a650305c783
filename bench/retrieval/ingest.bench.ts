/**
 * Retrieval ingest benchmark (issue 4): imports BENCH_DOCS documents (default 10,000, ~1,100 characters
 * each) through POST /admin/knowledge/documents/bulk in batches of 500, with the local embedder (384-dim)
 * and the live HNSW index. Reports documents/s, chunks embedded and stored per second, and total time.
 * Env: BENCH_DB=postgres|pglite (default postgres), BENCH_DOCS, BENCH_BATCH (500).
 * Run: npm run bench:retrieval:ingest
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createApp } from '../../apps/api/src/create-app.js';
import { benchDb, createTarget, rng, sentence, vocabulary, writeResult } from './common.js';
import { passThroughEnv } from '../support/in-process-api.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const kind = benchDb();
const totalDocs = Number(process.env.BENCH_DOCS ?? 10_000);
const batch = Number(process.env.BENCH_BATCH ?? 500);

async function main(): Promise<void> {
  const target = await createTarget(kind);
  const random = rng(7);
  const vocab = vocabulary(3000, random);
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: target.url,
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      DB_POOL_MAX: '8',
      EMBEDDING_DIMENSION: '384',
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
    const tenant = (await created.json()) as { apiKeys: { operator: string } };
    const started = performance.now();
    let failed = 0;
    for (let d0 = 0; d0 < totalDocs; d0 += batch) {
      const docs = Array.from({ length: Math.min(batch, totalDocs - d0) }, (_, i) => ({
        domain: `domain-${(d0 + i) % 20}`,
        filePath: `ingest/doc-${d0 + i}.md`,
        title: `Ingest document ${d0 + i}`,
        keywords: [`kw${d0 + i}`],
        content: Array.from({ length: 6 }, () => sentence(vocab, 30, random) + '.').join(' '),
      }));
      const res = await fetch(`${base}/admin/knowledge/documents/bulk`, {
        method: 'POST',
        headers: { 'x-api-key': tenant.apiKeys.operator, 'content-type': 'application/json' },
        body: JSON.stringify(docs),
      });
      const body = (await res.json()) as { summary: { failed: number } };
      if (res.status !== 200) throw new Error(`bulk failed: ${res.status} ${JSON.stringify(body)}`);
      failed += body.summary.failed;
      process.stdout.write(`\rimported ${d0 + docs.length}/${totalDocs}`);
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write('\n');
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_chunk');
    const chunks = rows[0].n;
    // What "every index live when it returns" covers: the chunk table's indexes as the import left them.
    const { rows: indexes } = await pool.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'knowledge_chunk' ORDER BY 1`);
    const result = {
      benchmark: 'retrieval-ingest',
      db: kind,
      documents: totalDocs,
      failed,
      chunks,
      seconds,
      documentsPerSecond: totalDocs / seconds,
      chunksPerSecond: chunks / seconds,
      batch,
      dimension: 384,
      knowledgeChunkIndexes: indexes.map((i) => i.name),
      node: process.version,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(`written ${writeResult(`retrieval-ingest-${kind}`, result)}`);
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
