import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { asTenantId } from '@arbiter/common';
import { BackgroundGate, sql } from '@arbiter/database';
import { type EmbeddingProvider, LocalEmbeddingProvider } from '@arbiter/llm';
import { explainPlan, newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../test/support/no-audit.js';
import { ActionMemoryRepository, ClaimLostError } from './action-memory.repository.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { KnowledgeRepository } from './knowledge.repository.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { LexicalRepository } from './lexical.repository.js';
import { EXACT_SEARCH_MAX_CHUNKS, nearestChunksQuery } from './nearest-chunks-sql.js';
import { KnowledgeService } from './knowledge.service.js';
import { RetrievalJobs } from './retrieval-jobs.service.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';
import { CandidateSearchRepository } from './candidate-search.repository.js';
import { HybridSearchService } from './hybrid-search.service.js';
import { normalizeSimilarity } from './relevance.js';
import { analyzeText } from './lexical/text-analyzer.js';

const T1 = asTenantId('00000000-0000-4000-8000-000000000001');
const T2 = asTenantId('00000000-0000-4000-8000-000000000002');
const T3 = asTenantId('00000000-0000-4000-8000-000000000003');

describe('knowledge store on pgvector (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let repo: KnowledgeRepository;
  let vectors: VectorSearchRepository;
  let settings: RetrievalSettingsService;
  const provider = new LocalEmbeddingProvider({ dimension: 384 });
  let knowledge: KnowledgeService;
  let index: VectorIndexService;
  let memoryRepo: ActionMemoryRepository;
  let lexical: LexicalRepository;

  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 });
    db = medium.db;
    ds = medium.dataSource;
    repo = new KnowledgeRepository(medium.database);
    vectors = new VectorSearchRepository(medium.database);
    settings = new RetrievalSettingsService(new RetrievalSettingsRepository(medium.database), provider, noAudit());
    lexical = new LexicalRepository(medium.database);
    knowledge = new KnowledgeService(repo, settings, lexical, provider, noAudit());
    // The HNSW tests stand for a neural provider of the same dimension: the hashing space itself has no index
    // (docs/hot-paths.md "No ANN search in the hashing embedder's space"; the last test).
    index = new VectorIndexService(vectors, { id: 'neural-stand-in:384', dimension: 384 } as EmbeddingProvider);
    await index.onModuleInit();
    memoryRepo = new ActionMemoryRepository(medium.database);
  }, 60_000);
  afterAll(() => medium?.close());

  const doc = (filePath: string, content: string, extra: Record<string, unknown> = {}) => ({
    domain: 'arm',
    filePath,
    title: `Title of ${filePath}`,
    content,
    ...extra,
  });

  it('creates the HNSW index for the provider dimension and vector search uses it', async () => {
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_384')).toBe(true);
    for (let i = 0; i < 30; i++) await knowledge.upsert(T1, doc(`bulk/${i}.md`, `Document ${i} talks about topic ${i % 5}. 第${i}号文档。`));
    const plan = await explainPlan(
      db,
      `SELECT id FROM knowledge_chunk c WHERE c.embedding_dim = 384 AND c.tenant_id = $1 AND c.embedding_model = $2 ORDER BY (c.embedding::vector(384)) <-> $3::vector(384) LIMIT 5`,
      [
        T1,
        provider.id,
        `[${new Array(384)
          .fill(0)
          .map((_, i) => (i === 0 ? 1 : 0))
          .join(',')}]`,
      ],
      { settings: ['enable_seqscan = off'] },
    );
    expect(plan).toContain('idx_knowledge_chunk_hnsw_384');
  });

  /** The executed plan of the vector search's statement (EXPLAIN ANALYZE: a branch the one-time filter skips says "never executed"). */
  const searchPlan = async (tenantId: typeof T1, vector: readonly number[]): Promise<string> => {
    const settings = sql`set_config('hnsw.ef_search', '100', true)`;
    const compiled = nearestChunksQuery(tenantId, { model: provider.id, dim: 384 }, vector, 40, {}, settings).compile(medium.database.db);
    return explainPlan(db, compiled.sql, compiled.parameters, { explain: 'ANALYZE, COSTS OFF, TIMING OFF' });
  };
  /** The scans of `knowledge_chunk` that ran: the index each used, or `seq`. */
  const chunkScans = (plan: string): string[] =>
    plan
      .split('\n')
      .filter((line) => / on knowledge_chunk /.test(line) && !line.includes('never executed'))
      .map((line) => /using (\w+)/.exec(line)?.[1] ?? 'seq');

  it("a tenant of up to EXACT_SEARCH_MAX_CHUNKS chunks is searched exactly beside a larger one; a larger tenant through the HNSW index, or in the hashing space by its lexical candidates' distance", async () => {
    for (let i = 0; i < 40; i++) await knowledge.upsert(T1, doc(`big/${i}.md`, `Servo drive ${i} maintenance: check the encoder cable ${i % 7}. 伺服${i}号。`));
    for (let i = 0; i < 5; i++) await knowledge.upsert(T3, doc(`small/${i}.md`, `Small tenant note ${i} about the gripper and its torque ${i}.`));
    const queries = await Promise.all(['encoder cable check', 'gripper torque', '伺服维护'].map((q) => provider.embedQuery(q)));
    for (const q of queries) {
      const found = await vectors.nearestChunks(T3, { model: provider.id, dim: 384 }, q, 40);
      const exact = await vectors.nearestChunksExact(T3, { model: provider.id, dim: 384 }, q, 40);
      // The same chunks at the same distances (equal distances may come in either order).
      const key = (hits: readonly { filePath: string; chunkIndex: number; distance: number }[]) =>
        hits.map((h) => `${h.distance.toFixed(6)} ${h.filePath}#${h.chunkIndex}`).sort();
      expect(key(found)).toEqual(key(exact));
      expect(found.length).toBe(5);
      expect(found.every((h) => h.filePath.startsWith('small/'))).toBe(true);
    }
    const small = await searchPlan(T3, queries[0]!);
    const exactScans = chunkScans(small);
    expect(exactScans).toHaveLength(1);
    expect(exactScans[0]).not.toBe('idx_knowledge_chunk_hnsw_384');
    // T1 counted as larger than the bound (its statistics row, what the statement reads): the HNSW branch runs instead.
    await db.pool.query('UPDATE knowledge_lexical_stats SET chunk_count = $2 WHERE tenant_id = $1', [T1, EXACT_SEARCH_MAX_CHUNKS + 1]);
    try {
      const large = await searchPlan(T1, queries[0]!);
      expect(chunkScans(large)).toEqual(['idx_knowledge_chunk_hnsw_384']);
      const viaIndex = await vectors.nearestChunks(T1, { model: provider.id, dim: 384 }, queries[0]!, 5);
      expect(viaIndex).toHaveLength(5);
      expect(viaIndex.every((h) => h.filePath.startsWith('big/') || !h.filePath.startsWith('small/'))).toBe(true);
      // The lookup's one statement (vector and lexical candidates together) runs the same HNSW branch.
      const oneRequest = {
        terms: [...new Set(analyzeText('encoder cable check'))],
        translation: null,
        space: { model: provider.id, dim: 384 },
        vector: queries[0]!,
        vectorLimit: 5,
        lexicalLimit: 5,
        scope: {},
      };
      const one = { ...(await new CandidateSearchRepository(medium.database, vectors).search(T1, oneRequest)), request: oneRequest };
      const keys = (hits: readonly { documentId: string; chunkIndex: number; distance: number }[]) =>
        hits.map((h) => `${h.documentId}#${h.chunkIndex} ${h.distance}`);
      expect(keys(one.vector)).toEqual(keys(viaIndex));
      expect(one.own.hits.length).toBe(5);

      // Without ANN search (the hashing embedder's space, docs/hot-paths.md "No ANN search in the hashing embedder's
      // space"): the larger tenant's vector list is empty, its lexical list the same; the small one is still exact.
      const candidates = new CandidateSearchRepository(medium.database, vectors);
      const request = { ...one.request, annSearch: false };
      const noAnn = await candidates.search(T1, request);
      expect(noAnn.vector).toEqual([]);
      expect(noAnn.own.hits.map((h) => `${h.documentId}#${h.chunkIndex}`)).toEqual(one.own.hits.map((h) => `${h.documentId}#${h.chunkIndex}`));
      const smallNoAnn = await candidates.search(T3, { ...request, vectorLimit: 40 });
      const smallExact = await vectors.nearestChunksExact(T3, { model: provider.id, dim: 384 }, queries[0]!, 40);
      expect(smallNoAnn.vector.map((h) => `${h.documentId}#${h.chunkIndex}`).sort()).toEqual(smallExact.map((h) => `${h.documentId}#${h.chunkIndex}`).sort());

      // The lookup's search in the hashing space ranks the larger tenant's lexical candidates by their exact distance.
      const hybrid = new HybridSearchService(candidates, provider);
      const effective = await settings.get(T1);
      const outcome = await hybrid.search(T1, { query: 'encoder cable check', vector: queries[0]! }, effective);
      const lexicalHits = (await candidates.search(T1, { ...request, vectorLimit: 40, lexicalLimit: 40 })).own.hits;
      const nearestLexical = Math.min(...lexicalHits.map((h) => h.distance!));
      expect(outcome.vectorTopSimilarity).toBeCloseTo(normalizeSimilarity(nearestLexical, effective.normalization.maxL2Distance), 6);
      const ranked = outcome.candidates.filter((c) => c.evidence.vectorRank !== null);
      expect(ranked.length).toBeGreaterThan(0);
      expect(ranked.every((c) => c.evidence.lexicalRank !== null)).toBe(true);
      expect(outcome.candidates.find((c) => c.evidence.vectorRank === 1)?.distance).toBeCloseTo(nearestLexical, 6);
    } finally {
      await db.pool.query(`UPDATE knowledge_lexical_stats SET chunk_count = (SELECT count(*) FROM knowledge_chunk WHERE tenant_id = $1) WHERE tenant_id = $1`, [
        T1,
      ]);
    }
  });

  it('every stored vector has unit norm (seed T7) and the dimension of its space', async () => {
    const { rows } = await db.pool.query<{ norm: number; dims: number; dim: number; model: string }>(
      'SELECT vector_norm(embedding) AS norm, vector_dims(embedding) AS dims, embedding_dim AS dim, embedding_model AS model FROM knowledge_chunk',
    );
    expect(rows.length).toBeGreaterThanOrEqual(30);
    for (const r of rows) {
      expect(Math.abs(Number(r.norm) - 1)).toBeLessThan(0.01);
      expect(Number(r.dims)).toBe(Number(r.dim));
    }
  });

  it('a concurrent lookup sees a document wholly old or wholly new while it is replaced', async () => {
    const version = (v: string) => Array.from({ length: 6 }, (_, i) => `Version ${v} paragraph ${i}: the calibration procedure ${v}${i}.`).join('\n\n');
    await knowledge.upsert(T1, doc('atomic.md', version('A'), { title: 'Atomic' }));
    const query = await provider.embedQuery('calibration procedure version');
    let stop = false;
    const mixed: string[][] = [];
    const reader = (async () => {
      let reads = 0;
      while (!stop || reads < 5) {
        const hits = await vectors.nearestChunks(T1, { model: provider.id, dim: 384 }, query, 200);
        const versions = new Set(hits.filter((h) => h.filePath === 'atomic.md').map((h) => h.content.match(/Version (\w)/)?.[1] ?? '?'));
        if (versions.size > 1) mixed.push([...versions]);
        reads++;
      }
      return reads;
    })();
    for (let i = 0; i < 6; i++) await knowledge.upsert(T1, doc('atomic.md', version(i % 2 ? 'A' : 'B'), { title: 'Atomic' }));
    stop = true;
    expect(await reader).toBeGreaterThan(0);
    expect(mixed).toEqual([]);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM knowledge_chunk c JOIN knowledge_document d ON d.tenant_id = c.tenant_id AND d.id = c.document_id WHERE d.file_path = 'atomic.md'`,
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it('identical file paths in two tenants are separate documents; search never crosses tenants', async () => {
    await knowledge.upsert(T1, doc('same.md', 'Tenant one secret about gripper torque.'));
    await knowledge.upsert(T2, doc('same.md', 'Tenant two secret about gripper torque.'));
    const v = await provider.embedQuery('gripper torque secret');
    const one = await vectors.nearestChunks(T1, { model: provider.id, dim: 384 }, v, 50);
    const two = await vectors.nearestChunks(T2, { model: provider.id, dim: 384 }, v, 50);
    expect(one.some((h) => h.content.includes('Tenant two'))).toBe(false);
    expect(two.every((h) => h.content.includes('Tenant two'))).toBe(true);
  });

  it('persisted action memory: per tenant, a live document claimed once, expiry and purge', async () => {
    const mark = (tenantId: typeof T1, sessionId: string, domain: string, filePath: string, level: 'REFERENCE' | 'PRECISE') =>
      memoryRepo.commitLookup(tenantId, sessionId, [{ domain, filePath, sectionKey: '', level }], 3600);
    const load = async (tenantId: typeof T1, sessionId: string) => (await memoryRepo.readForLookup(tenantId, sessionId)).memory;
    await mark(T1, 'sess', 'arm', 'a.md', 'REFERENCE');
    await mark(T1, 'sess', 'pay', 'b.md', 'PRECISE');
    const state = await load(T1, 'sess');
    expect([...state.docs].sort()).toEqual(['a.md', 'b.md']);
    expect([...state.domains]).toEqual([
      ['arm', { strong: false }],
      ['pay', { strong: true }],
    ]);
    // another tenant with the same session id has its own memory
    expect((await load(T2, 'sess')).domains.size).toBe(0);
    await mark(T2, 'sess', 'pay', 'b.md', 'REFERENCE');
    // a live document is claimed once: a second claim writes nothing (the lookup decides again)
    await expect(mark(T1, 'sess', 'pay', 'b.md', 'REFERENCE')).rejects.toBeInstanceOf(ClaimLostError);
    expect((await load(T1, 'sess')).domains.get('pay')).toEqual({ strong: true });

    await memoryRepo.expireSession(T1, 'sess');
    expect((await load(T1, 'sess')).domains.size).toBe(0);
    // an expired document can be claimed again
    await mark(T1, 'sess', 'pay', 'b.md', 'REFERENCE');
    expect([...(await load(T1, 'sess')).domains]).toEqual([['pay', { strong: false }]]);
    await memoryRepo.expireSession(T1, 'sess');
    expect(await memoryRepo.purgeExpired(T1)).toBe(2);
  });

  it('changing the embedding provider needs no migration: re-embed into a new space, lookups keep working', async () => {
    const small = new LocalEmbeddingProvider({ dimension: 64 });
    const before = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_document WHERE tenant_id = $1', [T1]);
    const smallKnowledge = new KnowledgeService(repo, settings, lexical, small, noAudit());
    const jobs = new RetrievalJobs(
      repo,
      smallKnowledge,
      settings,
      new VectorIndexService(vectors, small),
      lexical,
      small,
      new KnowledgeChunkRepository(medium.database),
    );
    // Mid-way (one batch), the old space still serves the old provider and the new space its migrated documents.
    const migrated = await repo.documentsMissingSpace(T1, { model: small.id, dim: 64 }, null, 3);
    for (const d of migrated)
      await repo.replaceChunksInSpace(T1, d.id, d.domain, await smallKnowledge.embedChunks(d.title, [{ content: d.content }]), { model: small.id, dim: 64 });
    const q384 = await provider.embedQuery('topic 3');
    expect((await vectors.nearestChunks(T1, { model: provider.id, dim: 384 }, q384, 5)).length).toBe(5);
    const q64 = await small.embedQuery('topic 3');
    expect((await vectors.nearestChunks(T1, { model: small.id, dim: 64 }, q64, 5)).length).toBeGreaterThan(0);

    const done = await jobs.reembed(T1, null, 10, { step: (work) => new BackgroundGate(ds).run(T1, work) });
    expect(done).toBe(before.rows[0].n - migrated.length);
    // The new space is the hashing embedder's: re-embedding into it builds no HNSW index.
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_64')).toBe(false);
    const spaces = await db.pool.query<{ model: string; dim: number }>(
      'SELECT DISTINCT embedding_model AS model, embedding_dim AS dim FROM knowledge_chunk WHERE tenant_id = $1',
      [T1],
    );
    expect(spaces.rows).toEqual([{ model: small.id, dim: 64 }]);
    expect((await vectors.nearestChunks(T1, { model: small.id, dim: 64 }, q64, 5)).length).toBe(5);
    // tenant 2 is untouched
    const other = await db.pool.query<{ model: string }>('SELECT DISTINCT embedding_model AS model FROM knowledge_chunk WHERE tenant_id = $1', [T2]);
    expect(other.rows).toEqual([{ model: provider.id }]);
  });

  it('the hashing space has no HNSW index: booting with the hashing embedder drops the one of its dimension, other dimensions keep theirs', async () => {
    await new VectorIndexService(vectors, { id: 'neural-stand-in:64', dimension: 64 } as EmbeddingProvider).onModuleInit();
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_384')).toBe(true);
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_64')).toBe(true);
    const hashing = new VectorIndexService(vectors, provider);
    await hashing.onModuleInit();
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_384')).toBe(false);
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_64')).toBe(true);
    // Idempotent: a second replica booting finds nothing to drop.
    expect(await hashing.ensureIndex({ model: provider.id, dim: 384 })).toBe(false);
    // A neural provider of that dimension gets its index back.
    expect(await index.ensureIndex({ model: 'neural-stand-in:384', dim: 384 })).toBe(true);
    expect(await vectors.indexExists('idx_knowledge_chunk_hnsw_384')).toBe(true);
  });
});
