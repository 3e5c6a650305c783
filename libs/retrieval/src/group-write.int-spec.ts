import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, DomainException, type TenantId } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../test/support/no-audit.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { GroupWriteService } from './group-write.service.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { KnowledgeRepository } from './knowledge.repository.js';
import { type ChunkDraft, KnowledgeService, normalizeDocument } from './knowledge.service.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { LexicalRepository } from './lexical.repository.js';
import { RetrievalErrorCode } from './retrieval.exception.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';

const T1 = asTenantId('00000000-0000-4000-8000-0000000000d1');
const T2 = asTenantId('00000000-0000-4000-8000-0000000000d2');
const T3 = asTenantId('00000000-0000-4000-8000-0000000000d3');
const T4 = asTenantId('00000000-0000-4000-8000-0000000000d4');
const T5 = asTenantId('00000000-0000-4000-8000-0000000000d5');
const T6 = asTenantId('00000000-0000-4000-8000-0000000000d6');
const T7 = asTenantId('00000000-0000-4000-8000-0000000000d7');

/** Seven chunks of a manual, each with a word of its own and the shared word "zebra". */
const DRAFTS: ChunkDraft[] = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'].map((w, k) => ({
  content: `Section ${k + 1}: the zebra crossing and the ${w} procedure of the controller, step ${k + 1}.`,
  page: k + 1,
  section: ['Manual', `Part ${w}`],
}));

const manual = (filePath: string) =>
  normalizeDocument({ domain: 'arm', filePath, title: 'Controller manual', content: DRAFTS.map((d) => d.content).join('\n\n') });

/** Write in groups (docs/hot-paths.md "A large file's write in groups"): hidden until whole, then counted exactly. */
describe('a document written in groups (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let knowledge: KnowledgeService;
  let groupWrite: GroupWriteService;
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
    groupWrite = new GroupWriteService(knowledge, documents, lexical);
    await new VectorIndexService(vectors, provider).onModuleInit();
  }, 60_000);
  afterAll(() => medium?.close());

  const count = async (table: string, tenantId: TenantId): Promise<number> =>
    Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenantId])).rows[0].n);

  /** The tenant's document frequencies, term → df (zeros left out). */
  async function frequencies(tenantId: TenantId): Promise<Record<string, number>> {
    const { rows } = await db.pool.query<{ term: string; df: number }>(
      'SELECT term, df FROM knowledge_term_df WHERE tenant_id = $1 AND df <> 0 ORDER BY term',
      [tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.term, Number(r.df)]));
  }

  /** Frequencies and statistics equal what the postings of shown documents say. */
  async function expectConsistent(tenantId: TenantId): Promise<void> {
    const { rows } = await db.pool.query<{ term: string; n: string }>(
      `SELECT k.term, count(*) AS n FROM knowledge_term k JOIN knowledge_document d ON d.tenant_id = k.tenant_id AND d.id = k.document_id
        WHERE k.tenant_id = $1 AND NOT d.writing GROUP BY k.term ORDER BY k.term`,
      [tenantId],
    );
    expect(await frequencies(tenantId)).toEqual(Object.fromEntries(rows.map((r) => [r.term, Number(r.n)])));
    const shown = await db.pool.query<{ n: string }>(
      'SELECT coalesce(sum(chunk_count), 0) AS n FROM knowledge_document WHERE tenant_id = $1 AND lexical_version > 0 AND NOT writing',
      [tenantId],
    );
    expect((await lexical.stats(tenantId)).chunkCount).toBe(Number(shown.rows[0].n));
  }

  async function writingId(tenantId: TenantId): Promise<string | null> {
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM knowledge_document WHERE tenant_id = $1 AND writing', [tenantId]);
    return rows[0]?.id ?? null;
  }

  /** What a lookup and the document endpoints show of the tenant while `id` is being written. */
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

  it('is hidden from lookups and the document endpoints until its last group is in, then counts as if written at once', async () => {
    await knowledge.upsert(T1, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const before = await lexical.stats(T1);
    const observed: string[][] = [];
    const step: BackgroundStep = async (work) => {
      const result = await work();
      const id = await writingId(T1);
      if (id) {
        observed.push(await visibleParts(T1, id));
        expect(await lexical.stats(T1)).toEqual(before);
      }
      return result;
    };
    const [result] = (await groupWrite.writeInGroups(T1, [{ doc: manual('manual.pdf'), drafts: DRAFTS }], { step, groupChunks: 2 })) ?? [];
    expect(result?.status).toBe('created');
    // Steps seen while it was being written: the creation and the four groups (the publication shows it).
    expect(observed).toEqual([[], [], [], [], []]);
    expect(await writingId(T1)).toBeNull();
    expect(await visibleParts(T1, result!.document.id)).toEqual(['lexical', 'vector', 'list', 'get', 'path', 'chunks']);
    expect(result!.document).toMatchObject({ filePath: 'manual.pdf', chunkCount: 7, version: 1 });
    const pages = await chunks.list(T1, result!.document.id, space, -1, 50);
    expect(pages.map((c) => [c.chunkIndex, c.page])).toEqual(DRAFTS.map((d, k) => [k, d.page]));
    await expectConsistent(T1);

    // The same two documents written at once in another tenant: the same frequencies, statistics and scores.
    await knowledge.upsert(T2, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    await knowledge.upsertMany(T2, [manual('manual.pdf')], { prepared: new Map([['manual.pdf', DRAFTS]]) });
    expect(await frequencies(T1)).toEqual(await frequencies(T2));
    expect(await lexical.stats(T1)).toEqual(await lexical.stats(T2));
    const terms = analyzeText('zebra golf procedure');
    const query = await provider.embedQuery('zebra golf');
    const scores = async (t: TenantId) => (await lexical.search(t, terms, space, query, 10)).hits.map((h) => [h.filePath, h.chunkIndex, h.score]);
    expect(await scores(T1)).toEqual(await scores(T2));
  });

  it('is superseded by a write of its path meanwhile: it fails DOCUMENT_WRITE_SUPERSEDED and the statistics stay exact', async () => {
    let steps = 0;
    const step: BackgroundStep = async (work) => {
      const result = await work();
      // After the first group (steps: the sweep, the statistics, the rows, the group), an operator posts a JSON document
      // at the same path: it takes the path over.
      if (++steps === 4) await knowledge.upsert(T3, { domain: 'arm', filePath: 'manual.pdf', title: 'Posted', content: 'Posted as JSON: the zebra note.' });
      return result;
    };
    const failure = await groupWrite.writeInGroups(T3, [{ doc: manual('manual.pdf'), drafts: DRAFTS }], { step, groupChunks: 2 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainException);
    expect((failure as DomainException).code).toBe(RetrievalErrorCode.DOCUMENT_WRITE_SUPERSEDED);
    const shown = await documents.findByPath(T3, 'manual.pdf');
    expect(shown).toMatchObject({ title: 'Posted', chunkCount: 1, version: 1 });
    expect(await count('knowledge_chunk', T3)).toBe(1);
    await expectConsistent(T3);
  });

  it('a write that failed midway leaves nothing; an unfinished one (a crash) is removed by the next write of its path', async () => {
    let steps = 0;
    const failing: BackgroundStep = async (work) => {
      // The second group fails (steps: the sweep, the statistics, the rows, two groups).
      if (++steps === 5) throw new Error('database away');
      return work();
    };
    await expect(groupWrite.writeInGroups(T4, [{ doc: manual('manual.pdf'), drafts: DRAFTS }], { step: failing, groupChunks: 2 })).rejects.toThrow(
      'database away',
    );
    expect([await count('knowledge_document', T4), await count('knowledge_chunk', T4), await count('knowledge_term', T4)]).toEqual([0, 0, 0]);
    expect((await lexical.stats(T4)).chunkCount).toBe(0);

    // A crash after two groups: the row, its chunks and postings stay hidden until the next write of the path.
    const doc = manual('manual.pdf');
    const id = (await documents.createWriting(T5, [{ doc, chunkCount: DRAFTS.length }])).get('manual.pdf') as string;
    const embedded = await knowledge.embedChunks(doc.title, DRAFTS.slice(0, 4));
    await documents.appendChunks(T5, [{ documentId: id, domain: 'arm', chunks: embedded, firstIndex: 0 }], space, (tx) =>
      lexical.appendPostings(tx, T5, [
        {
          documentId: id,
          domain: 'arm',
          chunks: embedded.map((c, k) => ({
            chunkIndex: k,
            terms: [...new Set(analyzeText(c.content))],
            impacts: [...new Set(analyzeText(c.content))].map(() => 1),
            length: 5,
          })),
        },
      ]),
    );
    expect(await visibleParts(T5, id)).toEqual([]);
    const [result] = (await groupWrite.writeInGroups(T5, [{ doc: manual('manual.pdf'), drafts: DRAFTS }], { groupChunks: 3 })) ?? [];
    expect(result?.document.id).not.toBe(id);
    expect([await count('knowledge_document', T5), await count('knowledge_chunk', T5)]).toEqual([1, DRAFTS.length]);
    await expectConsistent(T5);
    // A path with a shown document is not written in groups: the caller replaces it at once.
    expect(await groupWrite.writeInGroups(T5, [{ doc: manual('manual.pdf'), drafts: DRAFTS }])).toBeNull();
  });

  it("a sheet's rows (many small documents) share groups and are shown together, counted as if written at once", async () => {
    const rows = ['How do I reset the zebra alarm?', 'Where is the zebra fuse?', 'What does the zebra light mean?'].map((question, k) => ({
      doc: normalizeDocument({ domain: 'arm', filePath: `faq.csv#${k + 2}`, title: question, content: `Answer ${k}: check the zebra panel, row ${k}.` }),
      drafts: Array.from({ length: k + 1 }, (_, c) => ({ content: `Answer ${k}, part ${c}: check the zebra panel.` })),
    }));
    const shownDuring: number[] = [];
    const step: BackgroundStep = async (work) => {
      const result = await work();
      shownDuring.push((await documents.list(T6, {})).items.length);
      return result;
    };
    const written = await groupWrite.writeInGroups(T6, rows, { step, groupChunks: 2 });
    expect(written?.map((r) => [r.status, r.document.filePath, r.document.chunkCount])).toEqual([
      ['created', 'faq.csv#2', 1],
      ['created', 'faq.csv#3', 2],
      ['created', 'faq.csv#4', 3],
    ]);
    // 6 chunks in groups of 2: the sweep, the statistics read, the rows, three groups — nothing shown — then all three at once.
    expect(shownDuring).toEqual([0, 0, 0, 0, 0, 0, 3]);
    await expectConsistent(T6);
    await knowledge.upsertMany(
      T7,
      rows.map((r) => r.doc),
      { prepared: new Map(rows.map((r) => [r.doc.filePath, r.drafts])) },
    );
    expect(await frequencies(T6)).toEqual(await frequencies(T7));
    expect(await lexical.stats(T6)).toEqual(await lexical.stats(T7));
  });
});
