import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { asTenantId, DomainException, type TenantId } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../test/support/no-audit.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { KnowledgeChunksService } from './knowledge-chunks.service.js';
import { KnowledgeRepository } from './knowledge.repository.js';
import { type ChunkDraft, KnowledgeService, normalizeDocument } from './knowledge.service.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { LexicalRepository } from './lexical.repository.js';
import { RetrievalErrorCode } from './retrieval.exception.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';

const tenant = (n: number) => asTenantId(`00000000-0000-4000-8000-0000000000e${n}`);

/** Seven chunks of a manual, each with a word of its own and the shared word "zebra". */
const DRAFTS: ChunkDraft[] = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'].map((w, k) => ({
  content: `Section ${k + 1}: the zebra crossing and the ${w} procedure of the controller, step ${k + 1}.`,
  page: k + 1,
  section: ['Manual', `Part ${w}`],
}));

/**
 * The steps of deleting the seven-chunk manual in groups of 3: its chunk count, the terms of three groups, the hiding
 * transaction (step 5), three groups of postings, three of chunks, the row, the sweep.
 */
const HIDING_STEP = 5;

/** A step runner that runs `action` after step `n`. */
const afterStep = (n: number, action: () => Promise<void>): BackgroundStep => {
  let steps = 0;
  return async (work) => {
    const result = await work();
    if (++steps === n) await action();
    return result;
  };
};

const manual = (filePath = 'manual.pdf') =>
  normalizeDocument({ domain: 'arm', filePath, title: 'Controller manual', content: DRAFTS.map((d) => d.content).join('\n\n') });

/** A document's removal in groups (docs/hot-paths.md "A large document's removal in groups"). */
describe('a document removed in groups (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let knowledge: KnowledgeService;
  let lexical: LexicalRepository;
  let documents: KnowledgeRepository;
  let chunks: KnowledgeChunkRepository;
  let vectors: VectorSearchRepository;
  const provider = new LocalEmbeddingProvider({ dimension: 64 });
  const space = { model: provider.id, dim: provider.dimension };

  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 });
    db = medium.db;
    documents = new KnowledgeRepository(medium.database);
    lexical = new LexicalRepository(medium.database);
    chunks = new KnowledgeChunkRepository(medium.database);
    vectors = new VectorSearchRepository(medium.database);
    knowledge = new KnowledgeService(
      documents,
      new RetrievalSettingsService(new RetrievalSettingsRepository(medium.database), provider, noAudit()),
      lexical,
      provider,
      noAudit(),
    );
    await new VectorIndexService(vectors, provider).onModuleInit();
  }, 60_000);
  afterAll(() => medium?.close());

  const count = async (table: string, tenantId: TenantId): Promise<number> =>
    Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenantId])).rows[0].n);

  /** Rows of the tenant: documents, chunks, postings. */
  const rows = async (tenantId: TenantId) => [
    await count('knowledge_document', tenantId),
    await count('knowledge_chunk', tenantId),
    await count('knowledge_term', tenantId),
  ];

  /** The tenant's document frequencies, term → df (zeros left out). */
  async function frequencies(tenantId: TenantId): Promise<Record<string, number>> {
    const { rows: df } = await db.pool.query<{ term: string; df: number }>(
      'SELECT term, df FROM knowledge_term_df WHERE tenant_id = $1 AND df <> 0 ORDER BY term',
      [tenantId],
    );
    return Object.fromEntries(df.map((r) => [r.term, Number(r.df)]));
  }

  /** What a lookup and the document endpoints show of document `id`. */
  async function visibleParts(tenantId: TenantId, id: string): Promise<string[]> {
    const seen: string[] = [];
    const terms = analyzeText('zebra alpha golf');
    const query = await provider.embedQuery('zebra crossing alpha procedure');
    if ((await lexical.search(tenantId, terms, space, query, 20)).hits.some((h) => h.documentId === id)) seen.push('lexical');
    if ((await vectors.nearestChunks(tenantId, space, query, 20)).some((h) => h.documentId === id)) seen.push('vector');
    if ((await documents.list(tenantId, {})).items.some((d) => d.id === id)) seen.push('list');
    if (await documents.get(tenantId, id)) seen.push('get');
    if (await documents.findByPath(tenantId, 'manual.pdf')) seen.push('path');
    if (await chunks.documentExists(tenantId, id)) seen.push('chunks');
    if ((await lexical.tenantsWithStaleDocuments(LEXICAL_ANALYZER_VERSION)).includes(tenantId)) seen.push('reindex');
    return seen;
  }

  /** A tenant with a note and the seven-chunk manual; answers the manual's id. */
  async function seed(tenantId: TenantId): Promise<string> {
    await knowledge.upsert(tenantId, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const [written] = await knowledge.upsertMany(tenantId, [manual()], { prepared: new Map([['manual.pdf', DRAFTS]]) });
    if (written instanceof DomainException) throw written;
    return written.document.id;
  }

  it('is counted in groups, then gone for every reader at once, its statistics out exactly; its rows go in groups', async () => {
    const [t, twin] = [tenant(1), tenant(2)];
    const id = await seed(t);
    // The twin never had the manual: what the tenant's statistics must be from the hiding transaction on.
    await knowledge.upsert(twin, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const [stats, df] = [await lexical.stats(twin), await frequencies(twin)];
    const shown = ['lexical', 'vector', 'list', 'get', 'path', 'chunks'];
    expect(await visibleParts(t, id)).toEqual(shown);
    const observed: { seen: string[]; rows: number[]; counted: boolean }[] = [];
    const step: BackgroundStep = async (work) => {
      const result = await work();
      const counted = JSON.stringify([await lexical.stats(t), await frequencies(t)]) === JSON.stringify([stats, df]);
      observed.push({ seen: await visibleParts(t, id), rows: await rows(t), counted });
      return result;
    };
    const uncount = jest.spyOn(lexical, 'uncountDocument');
    await knowledge.delete(t, id, { step, groupChunks: 3 });
    // The terms counted before the lock are the ones the hiding transaction took out.
    expect(uncount.mock.calls[0]?.[3]?.size).toBeGreaterThan(10);
    uncount.mockRestore();
    const postings = (await rows(twin))[2];
    expect(observed.map((o) => o.seen)).toEqual([shown, shown, shown, shown, ...Array.from({ length: 9 }, () => [])]);
    expect(observed.map((o) => o.counted)).toEqual([false, false, false, false, ...Array.from({ length: 9 }, () => true)]);
    expect(observed.map((o) => o.rows[1])).toEqual([8, 8, 8, 8, 8, 8, 8, 8, 5, 2, 1, 1, 1]);
    expect(observed[HIDING_STEP + 2].rows[2]).toBe(postings);
    expect(await rows(t)).toEqual([1, 1, postings]);
    expect(await frequencies(t)).toEqual(df);
    expect(await lexical.stats(t)).toEqual(stats);
    const again = await knowledge.delete(t, id).catch((e: unknown) => e);
    expect((again as DomainException).code).toBe(RetrievalErrorCode.DOCUMENT_NOT_FOUND);
  });

  it('a chunk edited between the count and the lock: the hiding transaction counts again, exactly', async () => {
    const [t, twin] = [tenant(6), tenant(7)];
    const id = await seed(t);
    await knowledge.upsert(twin, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const edits = new KnowledgeChunksService(chunks, lexical, provider, noAudit());
    const edit = () => edits.edit(t, id, '1', { content: 'Quokka wombat platypus: an edited chunk of unusual words.' }).then(() => undefined);
    await knowledge.delete(t, id, { step: afterStep(HIDING_STEP - 1, edit), groupChunks: 3 });
    expect(await frequencies(t)).toEqual(await frequencies(twin));
    expect(await lexical.stats(t)).toEqual(await lexical.stats(twin));
  });

  it('a removal that failed midway is hidden, and finished by deleting the document again', async () => {
    const t = tenant(3);
    const id = await seed(t);
    let steps = 0;
    const failing: BackgroundStep = async (work) => {
      if (++steps === HIDING_STEP + 2) throw new Error('database away');
      return work();
    };
    // The delete answers: the document is gone for every reader once hidden.
    await knowledge.delete(t, id, { step: failing, groupChunks: 3 });
    expect(await visibleParts(t, id)).toEqual([]);
    expect((await rows(t))[1]).toBe(1 + DRAFTS.length);
    await knowledge.delete(t, id);
    expect((await rows(t)).slice(0, 2)).toEqual([1, 1]);
    expect((await knowledge.delete(t, id).catch((e: unknown) => e)) as DomainException).toMatchObject({ code: RetrievalErrorCode.DOCUMENT_NOT_FOUND });
  });

  it("what a dead process left hidden goes with the tenant's next delete, once untouched for an hour", async () => {
    const t = tenant(4);
    const id = await seed(t);
    const death = () => Promise.reject(new Error('process died'));
    await expect(knowledge.delete(t, id, { step: afterStep(HIDING_STEP, death), groupChunks: 3 })).rejects.toThrow('process died');
    expect(await visibleParts(t, id)).toEqual([]);
    // An hour later the tenant deletes another document: the leftover goes too. A recent hidden document stays.
    await db.pool.query(`UPDATE knowledge_document SET updated_at = now() - interval '61 minutes' WHERE tenant_id = $1 AND writing`, [t]);
    const recent = (await documents.createWriting(t, [{ doc: manual('recent.pdf'), chunkCount: 2 }])).get('recent.pdf') as string;
    const note = (await documents.findByPath(t, 'other.md'))!.id;
    await knowledge.delete(t, note);
    const { rows: left } = await db.pool.query<{ id: string }>('SELECT id FROM knowledge_document WHERE tenant_id = $1', [t]);
    expect(left.map((r) => r.id)).toEqual([recent]);
    expect(await count('knowledge_chunk', t)).toBe(0);
  });

  it('a re-post of its path meanwhile takes the row over; a re-index that read it before leaves it alone', async () => {
    const t = tenant(5);
    const id = await seed(t);
    const step = afterStep(HIDING_STEP, async () => {
      // A re-index that read the manual before its delete began now writes its postings: nothing changes.
      const [before, df] = [await lexical.stats(t), await frequencies(t)];
      await lexical.transaction((tx) =>
        lexical.replaceDocuments(tx, t, [{ documentId: id, domain: 'arm', chunks: [{ chunkIndex: 0, terms: ['zebra'], impacts: [1], length: 1 }] }], 1),
      );
      expect([await lexical.stats(t), await frequencies(t)]).toEqual([before, df]);
      // An operator posts a document at the manual's path: it takes the hidden row over, as a new document.
      await knowledge.upsert(t, { domain: 'arm', filePath: 'manual.pdf', title: 'Posted', content: 'Posted as JSON: the zebra note.' });
    });
    await knowledge.delete(t, id, { step, groupChunks: 3 });
    expect(await documents.findByPath(t, 'manual.pdf')).toMatchObject({ id, title: 'Posted', chunkCount: 1, version: 1 });
    expect(await rows(t)).toEqual([2, 2, await count('knowledge_term', t)]);
    const { rows: df } = await db.pool.query<{ term: string; n: string }>(
      'SELECT term, count(*) AS n FROM knowledge_term WHERE tenant_id = $1 GROUP BY term ORDER BY term',
      [t],
    );
    expect(await frequencies(t)).toEqual(Object.fromEntries(df.map((r) => [r.term, Number(r.n)])));
    expect((await lexical.stats(t)).chunkCount).toBe(2);
  });
});
