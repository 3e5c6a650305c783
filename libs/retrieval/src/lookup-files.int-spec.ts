import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { asTenantId, type TenantId } from '@arbiter/common';
import { BackgroundGate } from '@arbiter/database';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { explainPlan, newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../test/support/no-audit.js';
import { sectionKey } from './action-memory.js';
import { ActionMemoryRepository } from './action-memory.repository.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { KnowledgeChunksService } from './knowledge-chunks.service.js';
import { KnowledgeRepository, type NewDocument } from './knowledge.repository.js';
import { KnowledgeService, normalizeDocument } from './knowledge.service.js';
import { LexicalRepository } from './lexical.repository.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { RetrievalJobs } from './retrieval-jobs.service.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';
import { CandidateSearchRepository } from './candidate-search.repository.js';
import type { MetadataFilter } from './metadata-filter.js';

const T1 = asTenantId('00000000-0000-4000-8000-0000000000f1');
const T2 = asTenantId('00000000-0000-4000-8000-0000000000f2');
const T3 = asTenantId('00000000-0000-4000-8000-0000000000f3');

/**
 * The lookup side of files in (docs/retrieval.md "Sections of files", "Metadata filters"; docs/documents.md
 * "Chunks"): the SQL of filters, located chunks, disabled chunks and chunk edits, on both databases.
 */
describe('lookup over files: filters, sections, chunk edits (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let repo: KnowledgeRepository;
  let vectors: VectorSearchRepository;
  let lexical: LexicalRepository;
  let candidates: CandidateSearchRepository;
  let knowledge: KnowledgeService;
  let chunkRepo: KnowledgeChunkRepository;
  let chunks: KnowledgeChunksService;
  let settings: RetrievalSettingsService;
  const provider = new LocalEmbeddingProvider({ dimension: 64 });
  const space = { model: provider.id, dim: 64 };

  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 });
    db = medium.db;
    ds = medium.dataSource;
    repo = new KnowledgeRepository(medium.database);
    vectors = new VectorSearchRepository(medium.database);
    lexical = new LexicalRepository(medium.database);
    candidates = new CandidateSearchRepository(medium.database, vectors);
    settings = new RetrievalSettingsService(new RetrievalSettingsRepository(medium.database), provider, noAudit());
    knowledge = new KnowledgeService(repo, settings, lexical, provider, noAudit());
    chunkRepo = new KnowledgeChunkRepository(medium.database);
    chunks = new KnowledgeChunksService(chunkRepo, lexical, provider, noAudit());
    await new VectorIndexService(vectors, provider).onModuleInit();
  }, 60_000);
  afterAll(() => medium?.close());

  const json = (filePath: string, content: string, metadata: Record<string, unknown> = {}): NewDocument =>
    normalizeDocument({ domain: 'manuals', filePath, title: `Title of ${filePath}`, content, metadata });

  /** A document made from an uploaded file (the lead's import stores the file, then upserts the located chunks). */
  async function fileDocument(tenantId: TenantId, fileName: string, sections: { section: string[]; page?: number; content: string }[]) {
    const fileId = randomUUID();
    await db.pool.query(
      `INSERT INTO knowledge_file (tenant_id, id, file_name, media_type, byte_size, sha256, bytes) VALUES ($1, $2, $3, 'application/pdf', 3, $4, '\\x616263')`,
      [tenantId, fileId, fileName, createHash('sha256').update('abc').digest('hex')],
    );
    const content = sections.map((s) => s.content).join('\n\n');
    const doc: NewDocument = {
      ...normalizeDocument({ domain: 'manuals', filePath: fileName, title: 'Editor manual', content }),
      source: { fileId, mediaType: 'application/pdf', pageCount: 60 },
    };
    // As the import job writes a file's document: chunks cut by its structure, each with page and section.
    const prepared = new Map([[fileName, sections.map((s) => ({ content: s.content, section: s.section, ...(s.page ? { page: s.page } : {}) }))]]);
    const [r] = await knowledge.upsertMany(tenantId, [doc], { prepared });
    if (!r || r instanceof Error) throw r ?? new Error('no result');
    return r.document;
  }

  /** The lexical statistics must equal what the postings and documents say (as lexical.int-spec.ts checks). */
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

  /**
   * The lookup's one-statement candidate generation returns exactly what the vector and the lexical statements
   * return on their own (docs/hot-paths.md "Chat turn"), hits in the same order.
   */
  async function expectCandidatesAsSeparate(tenantId: TenantId, query: string, scope: { domain?: string; filter?: MetadataFilter }, translated?: string) {
    const v = await provider.embedQuery(query);
    const terms = [...new Set(analyzeText(query))];
    const translation = translated ? { terms: [...new Set(analyzeText(translated))], vector: await provider.embedQuery(translated) } : null;
    const one = await candidates.search(tenantId, { terms, translation, space, vector: v, vectorLimit: 40, lexicalLimit: 40, scope });
    const vector = await vectors.nearestChunks(tenantId, space, v, 40, scope);
    const lex = await lexical.searchWithTranslation(tenantId, terms, translation, space, v, 40, scope);
    const byDistance = (hits: { distance: number; documentId: string; chunkIndex: number }[]) =>
      [...hits].sort((a, b) => a.distance - b.distance || a.documentId.localeCompare(b.documentId) || a.chunkIndex - b.chunkIndex);
    expect(byDistance(one.vector)).toEqual(byDistance(vector));
    expect(one.own).toEqual(lex.own);
    expect(one.translated).toEqual(lex.translated);
    return one;
  }

  describe('metadata filters are applied in SQL before the limit', () => {
    const query = 'servo motor overheating alarm reset procedure';
    beforeAll(async () => {
      // 250 documents of another model repeat the query's words (nearer, and more than the 200 postings read per term)…
      const others = Array.from({ length: 250 }, (_, i) =>
        json(`other/${i}.md`, `${query}. ${query}. ${query} ${i}.`, { model: 'RX-100', year: 2023, lang: i % 2 ? 'en' : ['en', 'de'] }),
      );
      // …the one document of the asked model mentions them once, among other words (and not in its title, whose
      // heading field would lift it: docs/retrieval.md "Lexical index").
      const wanted = {
        ...json('rx200/servo.md', 'For the RX-200 arm: the servo alarm clears after the motor cools; then reset it from the pendant.', {
          model: 'RX-200',
          year: 2024,
          eol: false,
        }),
        title: 'RX-200 notes',
      };
      const bilingual = json('rx300/servo.md', 'RX-300 servo notes, unrelated wording about lubrication schedules.', {
        model: ['RX-300', 'RX-200-compatible'],
        year: 2024,
      });
      await knowledge.upsertMany(T1, [...others, wanted, bilingual]);
    }, 120_000);

    it('vector search: the matching document is found although 250 nearer chunks of other documents come first', async () => {
      const v = await provider.embedQuery(query);
      const unfiltered = await vectors.nearestChunks(T1, space, v, 5);
      expect(unfiltered.map((h) => h.filePath)).not.toContain('rx200/servo.md');
      const filtered = await vectors.nearestChunks(T1, space, v, 5, { filter: { model: 'RX-200' } });
      expect(filtered.map((h) => h.filePath)).toEqual(['rx200/servo.md']);
    });

    it('lexical search: the best postings are read among the filtered documents only', async () => {
      const v = await provider.embedQuery(query);
      const terms = [...new Set(analyzeText(query))];
      const unfiltered = await lexical.search(T1, terms, space, v, 5);
      expect(unfiltered.hits.map((h) => h.filePath)).not.toContain('rx200/servo.md');
      const filtered = await lexical.search(T1, terms, space, v, 5, { filter: { model: 'RX-200' } });
      expect(filtered.hits.map((h) => h.filePath)).toEqual(['rx200/servo.md']);
    });

    it.each([
      { name: 'any of several values (one held by a metadata array)', filter: { model: ['RX-200', 'RX-300'] }, paths: ['rx200/servo.md', 'rx300/servo.md'] },
      { name: 'a value held by a metadata array', filter: { model: 'RX-200-compatible' }, paths: ['rx300/servo.md'] },
      { name: 'a number and a boolean, both required', filter: { year: 2024, eol: false }, paths: ['rx200/servo.md'] },
      { name: 'a number alone', filter: { year: 2024 }, paths: ['rx200/servo.md', 'rx300/servo.md'] },
      { name: 'no document matches', filter: { model: 'RX-999' }, paths: [] },
      { name: 'the string "2024" is not the number 2024', filter: { year: '2024' }, paths: [] },
    ] as { name: string; filter: MetadataFilter; paths: string[] }[])('vector and lexical agree: $name', async ({ filter, paths }) => {
      const v = await provider.embedQuery('servo');
      const vector = await vectors.nearestChunks(T1, space, v, 50, { filter });
      expect([...new Set(vector.map((h) => h.filePath))].sort()).toEqual(paths);
      const lex = await lexical.search(T1, ['servo'], space, v, 50, { filter });
      expect([...new Set(lex.hits.map((h) => h.filePath))].sort()).toEqual(paths);
    });

    it.each([
      { name: 'no scope', scope: {} },
      { name: 'a domain', scope: { domain: 'manuals' } },
      { name: 'a metadata filter', scope: { filter: { model: ['RX-200', 'RX-300'] } } },
      { name: 'a domain nothing is in', scope: { domain: 'none' } },
    ] as { name: string; scope: { domain?: string; filter?: MetadataFilter } }[])('one statement finds what the two do: $name', async ({ scope }) => {
      const one = await expectCandidatesAsSeparate(T1, query, scope, 'servo Motor');
      if (scope.domain !== 'none') expect(one.vector.length).toBeGreaterThan(0);
      if (scope.domain !== 'none') expect(one.own.hits.length).toBeGreaterThan(0);
    });

    it('one statement: no terms at all still reads the vector hits and the chunk count', async () => {
      const one = await expectCandidatesAsSeparate(T1, '??? ...', {});
      expect(one.own).toEqual({ hits: [], idf: {}, chunkCount: 252 });
      expect(one.vector.length).toBe(40);
    });

    it('a metadata array value: any element matches', async () => {
      const v = await provider.embedQuery(query);
      const de = await vectors.nearestChunks(T1, space, v, 300, { filter: { lang: 'de' } });
      expect(de.length).toBe(125);
      const en = await vectors.nearestChunks(T1, space, v, 300, { filter: { lang: 'en' } });
      expect(en.length).toBe(250);
    });

    it('the filter is answered by the GIN index on metadata', async () => {
      const idx = await db.pool.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_knowledge_document_metadata'`);
      expect(idx.rows[0]?.indexdef).toMatch(/USING gin \(metadata jsonb_path_ops\)/);
      // Without the tenant's key (which a small table prefers), the containment alone must be answerable by the index.
      const plan = await explainPlan(
        db,
        `SELECT fd.id FROM knowledge_document fd WHERE fd.metadata @> $1::jsonb OR fd.metadata @> $2::jsonb`,
        ['{"model":"RX-200"}', '{"model":["RX-200"]}'],
        { settings: ['enable_seqscan = off'] },
      );
      expect(plan).toContain('idx_knowledge_document_metadata');
    });
  });

  describe('documents made from files', () => {
    let manualId: string;
    beforeAll(async () => {
      const manual = await fileDocument(T2, 'Manual.pdf', [
        { section: ['1 Getting started', '1.4.7 Setting a default editor'], page: 48, content: 'Choose the default editor in Settings, Editor, Default.' },
        { section: ['1 Getting started', '1.4.8 Fonts'], page: 49, content: 'Pick the editor font size and font family in Settings, Fonts.' },
        { section: ['2 Troubleshooting'], page: 55, content: 'If the editor does not start, delete the cache folder.' },
      ]);
      manualId = manual.id;
      await knowledge.upsertMany(T2, [json('faq/editor.md', 'FAQ: how to change the default editor in the settings dialog.')]);
    }, 60_000);

    it('one statement carries file name, pages and section like the two', async () => {
      const one = await expectCandidatesAsSeparate(T2, 'default editor font size', {});
      expect(one.vector.find((h) => h.documentId === manualId && h.chunkIndex === 0)).toMatchObject({ fileName: 'Manual.pdf', page: 48, pageEnd: 48 });
      expect(one.own.hits.find((h) => h.documentId === manualId)).toMatchObject({ fileName: 'Manual.pdf' });
    });

    it('hits carry the file name, pages and section; JSON documents nulls', async () => {
      const v = await provider.embedQuery('default editor settings');
      const hits = await vectors.nearestChunks(T2, space, v, 10);
      const first = hits.find((h) => h.chunkIndex === 0 && h.documentId === manualId);
      expect(first).toMatchObject({ fileName: 'Manual.pdf', page: 48, pageEnd: 48, section: ['1 Getting started', '1.4.7 Setting a default editor'] });
      expect(hits.find((h) => h.filePath === 'faq/editor.md')).toMatchObject({ fileName: null, page: null, pageEnd: null, section: null });
      const lex = await lexical.search(T2, [...new Set(analyzeText('font size'))], space, v, 10);
      expect(lex.hits[0]).toMatchObject({
        documentId: manualId,
        chunkIndex: 1,
        fileName: 'Manual.pdf',
        page: 49,
        section: ['1 Getting started', '1.4.8 Fonts'],
      });
    });

    it("fileName is the uploaded file's name, not the document's path: an FAQ sheet's rows are documents <file>#<row>", async () => {
      const fileId = randomUUID();
      await db.pool.query(
        `INSERT INTO knowledge_file (tenant_id, id, file_name, media_type, byte_size, sha256, bytes) VALUES ($1, $2, 'faq.xlsx', 'text/csv', 3, $3, '\\x616263')`,
        [T2, fileId, createHash('sha256').update('abc').digest('hex')],
      );
      const row = (n: number, answer: string): NewDocument => ({
        ...normalizeDocument({ domain: 'manuals', filePath: `faq.xlsx#${n}`, title: `Question ${n}`, content: answer }),
        source: { fileId, mediaType: 'text/csv', pageCount: null },
      });
      await knowledge.upsertMany(T2, [row(2, 'Reboot the kiosk by holding the power button.'), row(3, 'The kiosk warranty lasts two years.')]);
      const hits = await vectors.nearestChunks(T2, space, await provider.embedQuery('kiosk power button reboot'), 20);
      expect(
        hits
          .filter((h) => h.filePath.startsWith('faq.xlsx#'))
          .map((h) => [h.filePath, h.fileName, h.section])
          .sort(),
      ).toEqual([
        ['faq.xlsx#2', 'faq.xlsx', null],
        ['faq.xlsx#3', 'faq.xlsx', null],
      ]);
    });

    it('lists the chunks in order, a page at a time', async () => {
      const first = await chunks.list(T2, manualId, { limit: 2 });
      expect(first.items.map((c) => [c.chunkIndex, c.page, c.disabled])).toEqual([
        [0, 48, false],
        [1, 49, false],
      ]);
      expect(first.nextCursor).not.toBeNull();
      const rest = await chunks.list(T2, manualId, { limit: 2, cursor: first.nextCursor as string });
      expect(rest.items.map((c) => c.section)).toEqual([['2 Troubleshooting']]);
      expect(rest.nextCursor).toBeNull();
      await expect(chunks.list(T3, manualId, {})).rejects.toMatchObject({ code: 'DOCUMENT_NOT_FOUND' });
    });

    it('disable: never returned by vector or lexical search; re-enable: returned again; statistics stay exact', async () => {
      const v = await provider.embedQuery('editor cache folder does not start');
      const terms = [...new Set(analyzeText('cache folder'))];
      const has = async () => ({
        vector: (await vectors.nearestChunks(T2, space, v, 20)).some((h) => h.documentId === manualId && h.chunkIndex === 2),
        lexical: (await lexical.search(T2, terms, space, v, 20)).hits.some((h) => h.documentId === manualId && h.chunkIndex === 2),
        exact: (await vectors.nearestChunksExact(T2, space, v, 20)).some((h) => h.documentId === manualId && h.chunkIndex === 2),
      });
      expect(await has()).toEqual({ vector: true, lexical: true, exact: true });
      expect(await chunks.edit(T2, manualId, '2', { disabled: true })).toMatchObject({ chunkIndex: 2, disabled: true });
      expect(await has()).toEqual({ vector: false, lexical: false, exact: false });
      await expectConsistent(T2);
      expect(await chunks.edit(T2, manualId, '2', { disabled: false })).toMatchObject({ chunkIndex: 2, disabled: false });
      expect(await has()).toEqual({ vector: true, lexical: true, exact: true });
      await expectConsistent(T2);
    });

    it('edit: the new text is found, the old text is not; its vector is recomputed; statistics stay exact', async () => {
      const before = await db.pool.query<{ e: string }>(
        'SELECT embedding::text AS e FROM knowledge_chunk WHERE tenant_id = $1 AND document_id = $2 AND chunk_index = 1',
        [T2, manualId],
      );
      const edited = await chunks.edit(T2, manualId, '1', { content: 'Typeface choices: monospace glyph width and ligatures live under Appearance.' });
      expect(edited).toMatchObject({ chunkIndex: 1, content: 'Typeface choices: monospace glyph width and ligatures live under Appearance.', page: 49 });
      const after = await db.pool.query<{ e: string }>(
        'SELECT embedding::text AS e FROM knowledge_chunk WHERE tenant_id = $1 AND document_id = $2 AND chunk_index = 1',
        [T2, manualId],
      );
      expect(after.rows[0].e).not.toBe(before.rows[0].e);
      const v = await provider.embedQuery('ligatures');
      const found = await lexical.search(T2, [...new Set(analyzeText('monospace ligatures'))], space, v, 10);
      expect(found.hits.map((h) => [h.documentId, h.chunkIndex])).toEqual([[manualId, 1]]);
      const old = await lexical.search(T2, [...new Set(analyzeText('family size'))], space, v, 10);
      expect(old.hits.filter((h) => h.documentId === manualId && h.chunkIndex === 1)).toEqual([]);
      // The section path is indexed with the new text as it was with the old (docs/retrieval.md "Chunk context").
      const heading = await lexical.search(T2, [...new Set(analyzeText('fonts'))], space, v, 10);
      expect(heading.hits.filter((h) => h.documentId === manualId).map((h) => h.chunkIndex)).toEqual([1]);
      await expectConsistent(T2);
    });

    it('unknown chunk → CHUNK_NOT_FOUND; another tenant → DOCUMENT_NOT_FOUND; neither writes anything', async () => {
      const snapshot = async () =>
        (await db.pool.query('SELECT chunk_index, content, disabled_at FROM knowledge_chunk WHERE tenant_id = $1 ORDER BY document_id, chunk_index', [T2]))
          .rows;
      const was = await snapshot();
      await expect(chunks.edit(T2, manualId, '99', { disabled: true })).rejects.toMatchObject({ code: 'CHUNK_NOT_FOUND' });
      await expect(chunks.edit(T3, manualId, '0', { content: 'hijack' })).rejects.toMatchObject({ code: 'DOCUMENT_NOT_FOUND' });
      await expect(chunks.edit(T3, manualId, '0', { disabled: true })).rejects.toMatchObject({ code: 'DOCUMENT_NOT_FOUND' });
      await expect(chunks.edit(T2, manualId, 'x1', { disabled: true })).rejects.toMatchObject({ code: 'INVALID_CHUNK_EDIT' });
      await expect(chunks.edit(T2, manualId, '0', {})).rejects.toMatchObject({ code: 'INVALID_CHUNK_EDIT' });
      expect(await snapshot()).toEqual(was);
    });

    it('the action memory keys on (file, section): two sections of one manual are claimed side by side', async () => {
      const memory = new ActionMemoryRepository(medium.database);
      const a = sectionKey({ fileName: 'Manual.pdf', section: ['1 Getting started', '1.4.7 Setting a default editor'] });
      const b = sectionKey({ fileName: 'Manual.pdf', section: ['1 Getting started', '1.4.8 Fonts'] });
      await memory.commitLookup(T2, 's1', [{ domain: 'manuals', filePath: 'Manual.pdf', sectionKey: a, level: 'PRECISE' }], 3600);
      await memory.commitLookup(T2, 's1', [{ domain: 'manuals', filePath: 'Manual.pdf', sectionKey: b, level: 'PRECISE' }], 3600);
      const state = (await memory.readForLookup(T2, 's1')).memory;
      expect([...state.docs].sort()).toEqual([`Manual.pdf\u0000${a}`, `Manual.pdf\u0000${b}`].sort());
    });

    it('a re-embed copies the stored chunks (edited text, disabled flag, pages, sections); a lexical re-index keeps disabled chunks out', async () => {
      await chunks.edit(T2, manualId, '2', { disabled: true });
      const small = new LocalEmbeddingProvider({ dimension: 32 });
      const jobs = new RetrievalJobs(
        repo,
        new KnowledgeService(repo, settings, lexical, small, noAudit()),
        settings,
        new VectorIndexService(vectors, small),
        lexical,
        small,
        chunkRepo,
      );
      await jobs.reembed(T2, null, 10, { step: (work) => new BackgroundGate(ds).run(T2, work) });
      const rows = await db.pool.query<{ chunk_index: number; content: string; page: number; section: string[]; disabled: boolean }>(
        `SELECT chunk_index, content, page, section, disabled_at IS NOT NULL AS disabled FROM knowledge_chunk
          WHERE tenant_id = $1 AND document_id = $2 AND embedding_model = $3 ORDER BY chunk_index`,
        [T2, manualId, small.id],
      );
      expect(rows.rows.map((r) => [r.chunk_index, r.page, r.section.at(-1), r.disabled])).toEqual([
        [0, 48, '1.4.7 Setting a default editor', false],
        [1, 49, '1.4.8 Fonts', false],
        [2, 55, '2 Troubleshooting', true],
      ]);
      expect(rows.rows[1].content).toContain('ligatures');
      // Back to the first provider's space for the rest; then an analyzer change re-indexes the manual from its stored chunks.
      const back = new RetrievalJobs(repo, knowledge, settings, new VectorIndexService(vectors, provider), lexical, provider, chunkRepo);
      await back.reembed(T2, null, 10, { step: (work) => new BackgroundGate(ds).run(T2, work) });
      // An analyzer change: the manual's postings are of another version until the re-index job rebuilds them.
      await db.pool.query('UPDATE knowledge_document SET lexical_version = $3 WHERE tenant_id = $1 AND id = $2', [
        T2,
        manualId,
        LEXICAL_ANALYZER_VERSION + 100,
      ]);
      await back.reindexLexical(T2, null, 10, { step: (work) => new BackgroundGate(ds).run(T2, work) });
      const postings = await db.pool.query<{ chunk_index: number }>(
        'SELECT DISTINCT chunk_index FROM knowledge_term WHERE tenant_id = $1 AND document_id = $2 ORDER BY chunk_index',
        [T2, manualId],
      );
      expect(postings.rows.map((r) => r.chunk_index)).toEqual([0, 1]);
      const ligatures = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM knowledge_term WHERE tenant_id = $1 AND document_id = $2 AND chunk_index = 1 AND term = ANY($3::varchar[])`,
        [T2, manualId, analyzeText('ligatures')],
      );
      expect(ligatures.rows[0].n).toBe(1);
      await expectConsistent(T2);
    }, 60_000);
  });
});
