import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, validateBulkItems } from '@arbiter/common';
import { sql } from '@arbiter/database';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../test/support/no-audit.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { UpsertDocumentDto } from './dto/knowledge.dto.js';
import { KnowledgeRepository } from './knowledge.repository.js';
import { KnowledgeService, normalizeDocument } from './knowledge.service.js';
import { analyzeText } from './lexical/text-analyzer.js';
import { LexicalRepository } from './lexical.repository.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';

const T1 = asTenantId('00000000-0000-4000-8000-0000000000a1');
const T2 = asTenantId('00000000-0000-4000-8000-0000000000a2');

describe('lexical index statistics (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let knowledge: KnowledgeService;
  let lexical: LexicalRepository;
  const provider = new LocalEmbeddingProvider({ dimension: 64 });

  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 });
    db = medium.db;
    const repo = new KnowledgeRepository(medium.database);
    lexical = new LexicalRepository(medium.database);
    knowledge = new KnowledgeService(
      repo,
      new RetrievalSettingsService(new RetrievalSettingsRepository(medium.database), provider, noAudit()),
      lexical,
      provider,
      noAudit(),
    );
    await new VectorIndexService(new VectorSearchRepository(medium.database), provider).onModuleInit();
  }, 60_000);
  afterAll(() => medium?.close());

  /** The statistics must equal what the postings say, term by term. */
  async function expectConsistent(tenantId: string): Promise<void> {
    const drift = await db.pool.query(
      `SELECT coalesce(f.term, p.term) AS term, f.df, p.n FROM (SELECT term, df FROM knowledge_term_df WHERE tenant_id = $1 AND df <> 0) f
         FULL JOIN (SELECT term, count(*)::int AS n FROM knowledge_term WHERE tenant_id = $1 GROUP BY term) p ON p.term = f.term
        WHERE f.df IS DISTINCT FROM p.n`,
      [tenantId],
    );
    expect(drift.rows).toEqual([]);
    const stats = await db.pool.query<{ chunk_count: string; total_length: number }>(
      'SELECT chunk_count, total_length FROM knowledge_lexical_stats WHERE tenant_id = $1',
      [tenantId],
    );
    const docs = await db.pool.query<{ chunks: string; len: number }>(
      'SELECT coalesce(sum(chunk_count), 0) AS chunks, coalesce(sum(lexical_length), 0) AS len FROM knowledge_document WHERE tenant_id = $1 AND lexical_version > 0',
      [tenantId],
    );
    expect(Number(stats.rows[0]?.chunk_count ?? 0)).toBe(Number(docs.rows[0].chunks));
    expect(Number(stats.rows[0]?.total_length ?? 0)).toBeCloseTo(Number(docs.rows[0].len), 6);
  }

  const doc = (filePath: string, content: string) => ({ domain: 'arm', filePath, title: `Title ${filePath}`, content });

  it('create, update, unchanged re-post and delete keep document frequencies and lengths exact', async () => {
    await knowledge.upsert(T1, doc('a.md', 'The robot arm resets after the emergency stop is released. 机械臂复位。'));
    await knowledge.upsert(T1, doc('b.md', 'Replace the encoder battery every two years. 编码器电池两年更换一次。'));
    await knowledge.upsert(T2, doc('a.md', 'Another tenant: invoices and refunds.'));
    await expectConsistent(T1);
    await knowledge.upsert(T1, doc('a.md', 'Completely different text about lubrication grease. 减速机润滑。'));
    expect((await knowledge.upsert(T1, doc('a.md', 'Completely different text about lubrication grease. 减速机润滑。'))).status).toBe('unchanged');
    await expectConsistent(T1);
    const { items } = await knowledge.list(T1, {});
    await knowledge.delete(T1, items.find((d) => d.filePath === 'b.md')!.id);
    await expectConsistent(T1);
    await expectConsistent(T2);
    const stats = await lexical.stats(T1);
    expect(stats.chunkCount).toBe(1);
    // Deleting a tenant's document never touches another tenant's statistics.
    expect((await lexical.stats(T2)).chunkCount).toBe(1);
  });

  it('a re-post with another number of chunks moves the chunk count by the difference', async () => {
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000b1');
    const long = Array.from({ length: 60 }, (_, i) => `Step ${i}: check the servo drive ${i} and its encoder cable before the restart.`).join(' ');
    await knowledge.upsert(tenant, doc('long.md', long));
    const chunks = (await lexical.stats(tenant)).chunkCount;
    expect(chunks).toBeGreaterThan(2);
    await knowledge.upsert(tenant, doc('long.md', 'Now one short chunk about grease.'));
    expect((await lexical.stats(tenant)).chunkCount).toBe(1);
    await expectConsistent(tenant);
    await knowledge.upsert(tenant, doc('long.md', long));
    expect((await lexical.stats(tenant)).chunkCount).toBe(chunks);
    await expectConsistent(tenant);
  });

  it('migration 0262 recounts a drifted chunk count from the indexed documents', async () => {
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000b2');
    const emptied = asTenantId('00000000-0000-4000-8000-0000000000b3');
    await knowledge.upsert(tenant, doc('grease.md', 'Grease the gearbox every year.'));
    await db.pool.query('UPDATE knowledge_lexical_stats SET chunk_count = 99 WHERE tenant_id = $1', [tenant]);
    await db.pool.query('INSERT INTO knowledge_lexical_stats (tenant_id, chunk_count, total_length) VALUES ($1, 5, 0)', [emptied]);
    await db.pool.query(readFileSync(path.resolve('migrations/0262_lexical_chunk_count_recount.sql'), 'utf8'));
    expect((await lexical.stats(tenant)).chunkCount).toBe(1);
    expect((await lexical.stats(emptied)).chunkCount).toBe(0);
    await expectConsistent(tenant);
  });

  it("a tenant's lexical search reads its hits' chunks by key, however many chunks other tenants hold", async () => {
    const big = asTenantId('00000000-0000-4000-8000-0000000000a3');
    const small = asTenantId('00000000-0000-4000-8000-0000000000a4');
    await knowledge.upsertMany(
      big,
      Array.from({ length: 150 }, (_, i) => normalizeDocument(doc(`big/${i}.md`, `Servo ${i}: check the encoder cable ${i % 9} before restart.`))),
    );
    for (let i = 0; i < 3; i++) await knowledge.upsert(small, doc(`small/${i}.md`, `Encoder cable ${i} of the small tenant.`));
    const space = { model: provider.id, dim: provider.dimension };
    const terms = [...new Set(analyzeText('encoder cable'))];
    const vector = await provider.embedQuery('encoder cable');
    // Tuples of knowledge_chunk read by the statement (this transaction's own counters): a few per hit through the
    // unique key (tenant, document, model, chunk), 9–19 here. Without the tenant in the key each hit scanned the
    // whole table (462 = 3 × 154).
    // Read before and after the search: PostgreSQL 15 keeps a backend's counts pending (unflushed) for up to a second,
    // so the view can include an earlier transaction's reads on the same connection (the test before this one).
    const { hits, read } = await medium.database.transaction(async (tx) => {
      const counted = async () => {
        const { rows } = await sql<{ n: string }>`
          SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_xact_user_tables WHERE relname = 'knowledge_chunk'`.execute(tx);
        return Number(rows[0]?.n ?? 0);
      };
      const before = await counted();
      const { own } = await lexical.searchWithTranslation(small, terms, null, space, vector, 20, {}, tx);
      return { hits: own.hits, read: (await counted()) - before };
    });
    expect(hits.map((h) => h.filePath).sort()).toEqual(['small/0.md', 'small/1.md', 'small/2.md']);
    expect(hits.every((h) => h.distance !== null)).toBe(true);
    expect(read).toBeLessThan(50);
  });

  it('equal scores and distances rank by file path, not by the random document id, in the lexical and the vector list', async () => {
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000a6');
    // Eight documents alike in every word: equal BM25 scores, equal vectors. Written in reverse path order, so neither
    // the write order nor the ids (8! orders) give the path order by chance.
    const paths = Array.from({ length: 8 }, (_, i) => `tie/${i}.md`);
    for (const filePath of [...paths].reverse())
      await knowledge.upsert(tenant, { domain: 'arm', filePath, title: 'Encoder cable', content: 'Check the encoder cable before a restart.' });
    const space = { model: provider.id, dim: provider.dimension };
    const vector = await provider.embedQuery('encoder cable');
    const { own } = await medium.database.transaction((tx) =>
      lexical.searchWithTranslation(tenant, [...new Set(analyzeText('encoder cable'))], null, space, vector, 20, {}, tx),
    );
    expect(new Set(own.hits.map((h) => h.score)).size).toBe(1);
    expect(own.hits.map((h) => h.filePath)).toEqual(paths);
    const nearest = await new VectorSearchRepository(medium.database).nearestChunks(tenant, space, vector, 20);
    expect(new Set(nearest.map((h) => h.distance)).size).toBe(1);
    expect(nearest.map((h) => h.filePath)).toEqual(paths);
  });

  it("ties at a term's postings cap all count: 400 alike documents rank by file path, whatever their random ids", async () => {
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000a9');
    // Every posting of each term ties on impact, twice the cap (200): a cut inside the tie, read in the index's order
    // (the random document id), would score half of them and list the first paths of that half.
    const paths = Array.from({ length: 400 }, (_, i) => `tie/${String(i).padStart(3, '0')}.md`);
    for (let i = 0; i < paths.length; i += 100)
      await knowledge.upsertMany(
        tenant,
        paths
          .slice(i, i + 100)
          .map((filePath) => normalizeDocument({ domain: 'arm', filePath, title: 'Encoder cable', content: 'Check the encoder cable before a restart.' })),
      );
    const space = { model: provider.id, dim: provider.dimension };
    const vector = await provider.embedQuery('encoder cable');
    const { own } = await medium.database.transaction((tx) =>
      lexical.searchWithTranslation(tenant, [...new Set(analyzeText('encoder cable'))], null, space, vector, 20, {}, tx),
    );
    expect(new Set(own.hits.map((h) => h.score)).size).toBe(1);
    expect(own.hits.map((h) => h.filePath)).toEqual(paths.slice(0, 20));
  });

  it("a stop word's IDF is over the tenant's English chunks, a content word's over all of them", async () => {
    // Six Chinese manuals and two English pages: `the` is in a quarter of all chunks (rare) but in every English one.
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000a7');
    for (let i = 0; i < 6; i++)
      await knowledge.upsert(tenant, { domain: 'arm', filePath: `zh/${i}.md`, title: `手册 ${i}`, content: `机械臂第${i}章：减速机润滑与保养。` });
    await knowledge.upsert(tenant, { domain: 'arm', filePath: 'en/invoice.md', title: 'Invoices', content: 'The invoice is sent with the order.' });
    await knowledge.upsert(tenant, { domain: 'arm', filePath: 'en/refund.md', title: 'Refunds', content: 'The refund takes ten days.' });
    const space = { model: provider.id, dim: provider.dimension };
    const search = (query: string) =>
      medium.database.transaction(
        async (tx) =>
          (await lexical.searchWithTranslation(tenant, [...new Set(analyzeText(query))], null, space, await provider.embedQuery(query), 20, {}, tx)).own,
      );
    const { idf, chunkCount } = await search('the refund');
    expect(chunkCount).toBe(8);
    // df(the) = 2 = the English chunks: ln(1 + 0.5 / 2.5); a content word of df 1 reads N = 8: ln(1 + 7.5 / 1.5).
    expect(idf.the).toBeCloseTo(Math.log(1 + 0.5 / 2.5), 9);
    expect(idf.refund).toBeCloseTo(Math.log(1 + 7.5 / 1.5), 9);
    // Without the rule `the` would weigh ln(1 + 6.5 / 2.5) ≈ 1.28, more than a third of `refund`'s 1.79.
    expect(idf.the / idf.refund).toBeLessThan(0.15);
    // A query of stop words only still searches (a grade, not an error) and reads the same low weights.
    expect((await search('the')).hits.map((h) => h.filePath).sort()).toEqual(['en/invoice.md', 'en/refund.md']);
  });

  it('a short title that is the question asked outranks a long text repeating its words; the content score leaves the heading out', async () => {
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000a8');
    await knowledge.upsert(tenant, { domain: 'faq', filePath: 'where.md', title: 'Where can I get tested?', content: 'Ask your doctor or a local clinic.' });
    await knowledge.upsert(tenant, {
      domain: 'faq',
      filePath: 'results.md',
      title: 'Test results',
      content: 'Once tested, results of the test come in two days; a test can be repeated if the test was not clear.',
    });
    for (let i = 0; i < 6; i++)
      await knowledge.upsert(tenant, { domain: 'faq', filePath: `other/${i}.md`, title: `Topic ${i}`, content: `Masks and distance ${i}.` });
    const space = { model: provider.id, dim: provider.dimension };
    const query = 'where can I get tested';
    const { own } = await medium.database.transaction(async (tx) =>
      lexical.searchWithTranslation(tenant, [...new Set(analyzeText(query))], null, space, await provider.embedQuery(query), 20, {}, tx),
    );
    expect(own.hits.map((h) => h.filePath).slice(0, 2)).toEqual(['where.md', 'results.md']);
    const [where, results] = own.hits;
    // Content words only (`test`; `where`, `can`, `i`, `get` are stop words), the chunk's own postings only.
    expect(Object.keys(own.idf).sort()).toEqual(['can', 'get', 'i', 'test', 'where']);
    expect(where.contentScore).toBeGreaterThan(0);
    expect(where.contentScore).toBeLessThan(where.score);
    expect(results.contentScore).toBeGreaterThan(where.contentScore);
  });

  it("a document's postings are found by (tenant, document), not by a scan of the tenant's postings", async () => {
    const tenant = asTenantId('00000000-0000-4000-8000-0000000000a5');
    await knowledge.upsertMany(
      tenant,
      Array.from({ length: 60 }, (_, i) => normalizeDocument(doc(`p/${i}.md`, `Pendant ${i}: reset the alarm ${i % 5} and check the fan.`))),
    );
    // The statement `replaceDocuments` starts with (no planner statistics on PGlite: the index must decide it).
    const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (COSTS OFF) DELETE FROM knowledge_term WHERE tenant_id = $1 AND document_id = ANY($2::uuid[])`,
      [tenant, ['00000000-0000-4000-8000-00000000ffff']],
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('idx_knowledge_term_document_chunk');
  });

  it('concurrent imports of one tenant neither deadlock nor lose counts', async () => {
    const words = ['reset', 'encoder', 'battery', 'grease', 'alarm', '报警', '复位', '电池'];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        validateBulkItems(
          UpsertDocumentDto,
          Array.from({ length: 5 }, (_, k) =>
            doc(`bulk/${i}-${k}.md`, `${words[(i + k) % words.length]} ${words[(i * 3 + k) % words.length]} shared text ${i}-${k}`),
          ),
        ).then((items) => knowledge.bulk(T1, items)),
      ),
    );
    await expectConsistent(T1);
    expect((await lexical.stats(T1)).chunkCount).toBe(61);
  }, 60_000);
});
