/**
 * Vector-stage recall at scale (issue 27, "vector stage recall@5 vs exact, where an ANN index is used"): how many of
 * the exact 5 nearest chunks the lookup's vector search (`VectorSearchRepository.nearestChunks`, the HNSW branch:
 * tenant filter, iterative scan, `hnsw.ef_search` as the lookup sets it) returns, at BENCH_CHUNKS (100,000) chunks of
 * one tenant beside BENCH_OTHER_CHUNKS (20,000) of another in the same index, on PostgreSQL + pgvector, in two
 * embedding spaces of the same dimension in the same run (each in a database of its own, loaded in bulk, the HNSW
 * index built after the load with the product's parameters, `createHnswIndexSql`):
 *  - `neural-like`: vectors with the structure of a neural sentence encoder's — a low intrinsic dimension (topics in a
 *    BENCH_LATENT (48)-dimensional latent space, mapped to BENCH_DIM (384) dimensions by a fixed random projection),
 *    clustered (BENCH_TOPICS (400) topics), anisotropic (a shared direction: random texts are not orthogonal), small
 *    isotropic noise; questions are documents' latent points moved a little (a paraphrase). No model weights exist on
 *    this machine (no model hub), so this is a generated space, described here and in the README;
 *  - `hashing`: the built-in hashing embedder (`LocalEmbeddingProvider`) over real sentences of the shared intent
 *    sets, questions from the same pool: near-orthogonal vectors of a high intrinsic dimension, HNSW's worst case.
 * Each space reports its TwoNN intrinsic-dimension estimate (Facco et al. 2017) on a sample, recall@5 at the
 * lookup's own setting and over an `ef_search` sweep (BENCH_EF, the trade-off), and the sequential latency of one
 * search (not a throughput figure). Recall does not depend on machine load; the latencies do.
 * Env: BENCH_CHUNKS, BENCH_OTHER_CHUNKS, BENCH_QUERIES (200), BENCH_DIM, BENCH_LATENT, BENCH_TOPICS, BENCH_SPREAD (0.7), BENCH_EF
 * (`40,80,160,320`), BENCH_SPACES (`neural-like,hashing`), BENCH_POSTGRES_URL. Run: npm run bench:retrieval:recall
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { asTenantId, type TenantId } from '@arbiter/common';
import { sql } from '@arbiter/database';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { createHnswIndexSql, EXACT_SEARCH_MAX_CHUNKS, nearestChunksQuery, toVectorLiteral, VectorSearchRepository } from '@arbiter/retrieval';
import { pgAsDatabase } from '../support/pg-data-source.js';
import { createTarget, rng, writeResult } from './common.js';

const chunks = Number(process.env.BENCH_CHUNKS ?? 100_000);
const otherChunks = Number(process.env.BENCH_OTHER_CHUNKS ?? 20_000);
const queries = Number(process.env.BENCH_QUERIES ?? 200);
const dim = Number(process.env.BENCH_DIM ?? 384);
const latent = Number(process.env.BENCH_LATENT ?? 48);
const topics = Number(process.env.BENCH_TOPICS ?? 400);
/** Spread of a document around its topic's centre (the centres' own spread is 1): larger is less clustered. */
const spread = Number(process.env.BENCH_SPREAD ?? 0.7);
const efSweep = (process.env.BENCH_EF ?? '40,80,160,320').split(',').map(Number);
const spaces = (process.env.BENCH_SPACES ?? 'neural-like,hashing').split(',') as SpaceName[];
const SHARED = process.env.BENCH_SHARED_DATASETS ?? path.resolve('..', 'shared', 'datasets');
/** What the lookup asks of the vector index (hybrid-search.service.ts VECTOR_CHUNKS); recall is read on its first 5. */
const LOOKUP_VECTOR_CHUNKS = 40;

type SpaceName = 'neural-like' | 'hashing';
type Vectors = { documents: (count: number, seed: number) => Promise<number[][]>; questions: (count: number) => Promise<number[][]>; model: string };

const gaussian = (random: () => number) => () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const normalize = (v: number[]): number[] => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};

/** The generated space (see the header): topic centres and a projection fixed by the seed. */
function neuralLike(): Vectors {
  const g = gaussian(rng(27));
  const projection = Array.from({ length: latent }, () => Array.from({ length: dim }, () => g()));
  const shared = normalize(Array.from({ length: dim }, () => g()));
  const centres = Array.from({ length: topics }, () => Array.from({ length: latent }, () => g()));
  const points: number[][] = [];
  const embed = (z: readonly number[], noise: () => number): number[] => {
    // Scales: the projected latent point has norm ~1.2, the shared direction 0.8 (random pairs' cosine ~0.3), the
    // isotropic noise ~0.4 (a tenth of the variance).
    const v = shared.map((s) => 0.8 * s);
    const scale = 1 / Math.sqrt(dim * latent);
    for (let i = 0; i < latent; i++) {
      const zi = z[i]! * scale;
      const row = projection[i]!;
      for (let j = 0; j < dim; j++) v[j]! += zi * row[j]!;
    }
    for (let j = 0; j < dim; j++) v[j]! += 0.02 * noise();
    return normalize(v);
  };
  return {
    model: 'bench:neural-like',
    documents: async (count, seed) => {
      const n = gaussian(rng(seed));
      const pick = rng(seed + 1000);
      return Array.from({ length: count }, () => {
        const centre = centres[Math.floor(pick() * topics)]!;
        const z = centre.map((c) => c + spread * n());
        if (seed === 1) points.push(z);
        return embed(z, n);
      });
    },
    questions: async (count) => {
      const n = gaussian(rng(99));
      const pick = rng(98);
      return Array.from({ length: count }, () => {
        const z = points[Math.floor(pick() * points.length)]!.map((x) => x + 0.35 * n());
        return embed(z, n);
      });
    },
  };
}

/** Real sentences of the shared intent sets, four to a chunk as `bench:retrieval`'s distractors. */
function hashing(): Vectors {
  const provider = new LocalEmbeddingProvider({ dimension: dim });
  const pool: string[] = [];
  for (const f of ['clinc150/train.jsonl', 'banking77/train.jsonl', 'smp2017/smp2017_train.jsonl', 'clinc150/test.jsonl'])
    for (const line of readFileSync(path.join(SHARED, f), 'utf8').split('\n')) if (line.trim()) pool.push((JSON.parse(line) as { text: string }).text);
  const texts = (count: number, seed: number, per: number) => {
    const random = rng(seed);
    return Array.from({ length: count }, () => Array.from({ length: per }, () => pool[Math.floor(random() * pool.length)]).join(' '));
  };
  const embedAll = async (list: string[]) => {
    const out: number[][] = [];
    for (let i = 0; i < list.length; i += 500) out.push(...(await provider.embedDocuments(list.slice(i, i + 500))));
    return out;
  };
  return {
    model: provider.id,
    documents: (count, seed) => embedAll(texts(count, seed, 4)),
    questions: (count) => Promise.all(texts(count, 97, 1).map((t) => provider.embedQuery(t))),
  };
}

/** TwoNN intrinsic dimension: N / Σ ln(r2/r1) over a sample's two nearest neighbours (cosine space, unit vectors). */
function twoNN(sample: readonly number[][]): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < sample.length; i++) {
    let r1 = Infinity;
    let r2 = Infinity;
    for (let j = 0; j < sample.length; j++) {
      if (i === j) continue;
      let dot = 0;
      const a = sample[i]!;
      const b = sample[j]!;
      for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
      const d = Math.sqrt(Math.max(0, 2 - 2 * dot));
      if (d < r1) [r1, r2] = [d, r1];
      else if (d < r2) r2 = d;
    }
    if (r1 > 0 && Number.isFinite(r2)) {
      sum += Math.log(r2 / r1);
      n++;
    }
  }
  return n / sum;
}

async function load(pool: pg.Pool, tenantId: string, model: string, vectors: number[][]): Promise<void> {
  await pool.query(`INSERT INTO tenant (id, name) VALUES ($1, $2)`, [tenantId, `recall-${tenantId.slice(0, 8)}`]);
  const PER_DOC = 10;
  for (let start = 0; start < vectors.length; start += 2_000) {
    const slice = vectors.slice(start, start + 2_000);
    const docs = Array.from({ length: Math.ceil(slice.length / PER_DOC) }, () => randomUUID());
    await pool.query(
      `INSERT INTO knowledge_document (tenant_id, id, domain, file_path, title, content, content_hash)
       SELECT $1, d, 'recall', 'recall/' || d, 'Recall ' || d, 'generated', 'h' || d FROM unnest($2::uuid[]) AS d`,
      [tenantId, docs],
    );
    await pool.query(
      `INSERT INTO knowledge_chunk (tenant_id, document_id, chunk_index, domain, content, embedding, embedding_dim, embedding_model)
       SELECT $1, doc, idx, 'recall', 'chunk', v::vector, $5, $6 FROM unnest($2::uuid[], $3::int[], $4::text[]) AS x(doc, idx, v)`,
      [tenantId, slice.map((_, i) => docs[Math.floor(i / PER_DOC)]), slice.map((_, i) => i % PER_DOC), slice.map((v) => toVectorLiteral(v)), dim, model],
    );
  }
  // The lookup reads the tenant's size here to choose exact or HNSW search (nearest-chunks-sql.ts).
  await pool.query(`INSERT INTO knowledge_lexical_stats (tenant_id, chunk_count, total_length) VALUES ($1, $2, 0)`, [tenantId, vectors.length]);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function measure(name: SpaceName) {
  const space = name === 'neural-like' ? neuralLike() : hashing();
  const target = await createTarget('postgres');
  const pool = new pg.Pool({ connectionString: target.url, max: 4 });
  try {
    const tenant = asTenantId(randomUUID());
    const t0 = performance.now();
    const docs = await space.documents(chunks, 1);
    const others = await space.documents(otherChunks, 2);
    const asked = await space.questions(queries);
    const generated = (performance.now() - t0) / 1000;
    await load(pool, tenant, space.model, docs);
    await load(pool, randomUUID(), space.model, others);
    const t1 = performance.now();
    const client = await pool.connect();
    try {
      await client.query(`SET maintenance_work_mem = '1GB'`);
      await client.query(createHnswIndexSql(dim));
      await client.query('ANALYZE');
    } finally {
      client.release();
    }
    const build = (performance.now() - t1) / 1000;
    const sample = docs.filter((_, i) => i % Math.ceil(docs.length / 2000) === 0).slice(0, 2000);
    const id = twoNN(sample);
    const sampleCosine = (() => {
      let s = 0;
      for (let i = 0; i + 1 < sample.length; i += 2) s += sample[i]!.reduce((a, x, k) => a + x * sample[i + 1]![k]!, 0);
      return s / Math.floor(sample.length / 2);
    })();

    const database = pgAsDatabase(pool);
    const repo = new VectorSearchRepository(database);
    const vspace = { model: space.model, dim };
    const truth: Set<string>[] = [];
    for (const v of asked) truth.push(new Set((await repo.nearestChunksExact(tenant, vspace, v, 5)).map((h) => `${h.documentId}:${h.chunkIndex}`)));
    const recallOf = (found: { documentId: string; chunkIndex: number }[][]) =>
      found.reduce((s, hits, i) => s + hits.slice(0, 5).filter((h) => truth[i]!.has(`${h.documentId}:${h.chunkIndex}`)).length / 5, 0) / found.length;

    // As the lookup searches: its limit and its settings.
    const lookupHits: { documentId: string; chunkIndex: number }[][] = [];
    const lookupMs: number[] = [];
    for (const v of asked) {
      const s = performance.now();
      lookupHits.push(await repo.nearestChunks(tenant, vspace, v, LOOKUP_VECTOR_CHUNKS));
      lookupMs.push(performance.now() - s);
    }
    lookupMs.sort((a, b) => a - b);
    const sweep: { efSearch: number; recallAt5: number; p50Ms: number }[] = [];
    for (const ef of efSweep) {
      const settings = sql`set_config('hnsw.ef_search', ${sql.lit(String(ef))}, true) || set_config('hnsw.iterative_scan', 'relaxed_order', true)`;
      const found: { documentId: string; chunkIndex: number }[][] = [];
      const ms: number[] = [];
      for (const v of asked) {
        const s = performance.now();
        const { rows } = await nearestChunksQuery<{ document_id: string; chunk_index: number }>(tenant as TenantId, vspace, v, 5, {}, settings).execute(
          database.db,
        );
        ms.push(performance.now() - s);
        found.push(rows.map((r) => ({ documentId: r.document_id, chunkIndex: r.chunk_index })));
      }
      ms.sort((a, b) => a - b);
      sweep.push({ efSearch: ef, recallAt5: recallOf(found), p50Ms: percentile(ms, 50) });
    }
    const result = {
      space: name,
      model: space.model,
      chunks,
      otherChunks,
      queries: asked.length,
      exactSearchMaxChunks: EXACT_SEARCH_MAX_CHUNKS,
      intrinsicDimensionTwoNN: id,
      meanCosineOfRandomPairs: sampleCosine,
      generateSeconds: generated,
      hnswBuildSeconds: build,
      lookup: { limit: LOOKUP_VECTOR_CHUNKS, recallAt5: recallOf(lookupHits), p50Ms: percentile(lookupMs, 50), p95Ms: percentile(lookupMs, 95) },
      sweep,
    };
    console.log(
      `${name}: TwoNN dimension ${id.toFixed(1)}, mean cosine ${sampleCosine.toFixed(3)}; HNSW build ${build.toFixed(0)} s; ` +
        `recall@5 as the lookup searches ${result.lookup.recallAt5.toFixed(3)} (p50 ${result.lookup.p50Ms.toFixed(1)} ms, sequential); ` +
        `sweep ${sweep.map((s) => `ef ${s.efSearch}: ${s.recallAt5.toFixed(3)} (${s.p50Ms.toFixed(1)} ms)`).join(', ')}`,
    );
    return result;
  } finally {
    await pool.end();
    await target.close();
  }
}

const results = [];
for (const name of spaces) results.push(await measure(name));
writeResult('retrieval-recall', { chunks, otherChunks, queries, dim, latent, topics, spread, results });
