import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainException, type TenantId } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';
import { controllerManual, KnowledgeStack, MANUAL_DRAFTS, testTenant } from './knowledge-stack.int-fixture.js';
import { GroupWriteService } from './group-write.service.js';
import { normalizeDocument } from './knowledge.service.js';
import { analyzeText } from './lexical/text-analyzer.js';
import { RetrievalErrorCode } from './retrieval.exception.js';

const [T1, T2, T3, T4, T5, T6, T7] = [1, 2, 3, 4, 5, 6, 7].map((n) => testTenant(`d${n}`));

/** Write in groups (docs/hot-paths.md "A large file's write in groups"): hidden until whole, then counted exactly. */
describe('a document written in groups (integration)', () => {
  let stack: KnowledgeStack;
  let groupWrite: GroupWriteService;

  beforeAll(async () => {
    stack = await KnowledgeStack.start();
    groupWrite = new GroupWriteService(stack.knowledge, stack.documents, stack.lexical);
  }, 60_000);
  afterAll(() => stack?.close());

  const count = (table: string, tenantId: TenantId) => stack.count(table, tenantId);
  const frequencies = (tenantId: TenantId) => stack.frequencies(tenantId);
  const visibleParts = (tenantId: TenantId, id: string) => stack.visibleParts(tenantId, id);

  /** Frequencies and statistics equal what the postings of shown documents say. */
  async function expectConsistent(tenantId: TenantId): Promise<void> {
    const { rows } = await stack.db.pool.query<{ term: string; n: string }>(
      `SELECT k.term, count(*) AS n FROM knowledge_term k JOIN knowledge_document d ON d.tenant_id = k.tenant_id AND d.id = k.document_id
        WHERE k.tenant_id = $1 AND NOT d.writing GROUP BY k.term ORDER BY k.term`,
      [tenantId],
    );
    expect(await frequencies(tenantId)).toEqual(Object.fromEntries(rows.map((r) => [r.term, Number(r.n)])));
    const shown = await stack.db.pool.query<{ n: string }>(
      'SELECT coalesce(sum(chunk_count), 0) AS n FROM knowledge_document WHERE tenant_id = $1 AND lexical_version > 0 AND NOT writing',
      [tenantId],
    );
    expect((await stack.lexical.stats(tenantId)).chunkCount).toBe(Number(shown.rows[0].n));
  }

  async function writingId(tenantId: TenantId): Promise<string | null> {
    const { rows } = await stack.db.pool.query<{ id: string }>('SELECT id FROM knowledge_document WHERE tenant_id = $1 AND writing', [tenantId]);
    return rows[0]?.id ?? null;
  }

  it('is hidden from lookups and the document endpoints until its last group is in, then counts as if written at once', async () => {
    await stack.knowledge.upsert(T1, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const before = await stack.lexical.stats(T1);
    const observed: string[][] = [];
    const step: BackgroundStep = async (work) => {
      const result = await work();
      const id = await writingId(T1);
      if (id) {
        observed.push(await visibleParts(T1, id));
        expect(await stack.lexical.stats(T1)).toEqual(before);
      }
      return result;
    };
    const [result] = (await groupWrite.writeInGroups(T1, [{ doc: controllerManual('manual.pdf'), drafts: MANUAL_DRAFTS }], { step, groupChunks: 2 })) ?? [];
    expect(result?.status).toBe('created');
    // Steps seen while it was being written: the creation and the four groups (the publication shows it).
    expect(observed).toEqual([[], [], [], [], []]);
    expect(await writingId(T1)).toBeNull();
    expect(await visibleParts(T1, result!.document.id)).toEqual(['lexical', 'vector', 'list', 'get', 'path', 'chunks']);
    expect(result!.document).toMatchObject({ filePath: 'manual.pdf', chunkCount: 7, version: 1 });
    const pages = await stack.chunks.list(T1, result!.document.id, stack.space, -1, 50);
    expect(pages.map((c) => [c.chunkIndex, c.page])).toEqual(MANUAL_DRAFTS.map((d, k) => [k, d.page]));
    await expectConsistent(T1);

    // The same two documents written at once in another tenant: the same frequencies, statistics and scores.
    await stack.knowledge.upsert(T2, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    await stack.knowledge.upsertMany(T2, [controllerManual('manual.pdf')], { prepared: new Map([['manual.pdf', MANUAL_DRAFTS]]) });
    expect(await frequencies(T1)).toEqual(await frequencies(T2));
    expect(await stack.lexical.stats(T1)).toEqual(await stack.lexical.stats(T2));
    const terms = analyzeText('zebra golf procedure');
    const query = await stack.provider.embedQuery('zebra golf');
    const scores = async (t: TenantId) => (await stack.lexical.search(t, terms, stack.space, query, 10)).hits.map((h) => [h.filePath, h.chunkIndex, h.score]);
    expect(await scores(T1)).toEqual(await scores(T2));
  });

  it('is superseded by a write of its path meanwhile: it fails DOCUMENT_WRITE_SUPERSEDED and the statistics stay exact', async () => {
    let steps = 0;
    const step: BackgroundStep = async (work) => {
      const result = await work();
      // After the first group (steps: the sweep, the statistics, the rows, the group), an operator posts a JSON document
      // at the same path: it takes the path over.
      if (++steps === 4)
        await stack.knowledge.upsert(T3, { domain: 'arm', filePath: 'manual.pdf', title: 'Posted', content: 'Posted as JSON: the zebra note.' });
      return result;
    };
    const failure = await groupWrite
      .writeInGroups(T3, [{ doc: controllerManual('manual.pdf'), drafts: MANUAL_DRAFTS }], { step, groupChunks: 2 })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainException);
    expect((failure as DomainException).code).toBe(RetrievalErrorCode.DOCUMENT_WRITE_SUPERSEDED);
    const shown = await stack.documents.findByPath(T3, 'manual.pdf');
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
    await expect(
      groupWrite.writeInGroups(T4, [{ doc: controllerManual('manual.pdf'), drafts: MANUAL_DRAFTS }], { step: failing, groupChunks: 2 }),
    ).rejects.toThrow('database away');
    expect([await count('knowledge_document', T4), await count('knowledge_chunk', T4), await count('knowledge_term', T4)]).toEqual([0, 0, 0]);
    expect((await stack.lexical.stats(T4)).chunkCount).toBe(0);

    // A crash after two groups: the row, its chunks and postings stay hidden until the next write of the path.
    const doc = controllerManual('manual.pdf');
    const id = (await stack.documents.createWriting(T5, [{ doc, chunkCount: MANUAL_DRAFTS.length }])).get('manual.pdf') as string;
    const embedded = await stack.knowledge.embedChunks(doc.title, MANUAL_DRAFTS.slice(0, 4));
    await stack.documents.appendChunks(T5, [{ documentId: id, domain: 'arm', chunks: embedded, firstIndex: 0 }], stack.space, (tx) =>
      stack.lexical.appendPostings(tx, T5, [
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
    const [result] = (await groupWrite.writeInGroups(T5, [{ doc: controllerManual('manual.pdf'), drafts: MANUAL_DRAFTS }], { groupChunks: 3 })) ?? [];
    expect(result?.document.id).not.toBe(id);
    expect([await count('knowledge_document', T5), await count('knowledge_chunk', T5)]).toEqual([1, MANUAL_DRAFTS.length]);
    await expectConsistent(T5);
    // A path with a shown document is not written in groups: the caller replaces it at once.
    expect(await groupWrite.writeInGroups(T5, [{ doc: controllerManual('manual.pdf'), drafts: MANUAL_DRAFTS }])).toBeNull();
  });

  it("a sheet's rows (many small documents) share groups and are shown together, counted as if written at once", async () => {
    const rows = ['How do I reset the zebra alarm?', 'Where is the zebra fuse?', 'What does the zebra light mean?'].map((question, k) => ({
      doc: normalizeDocument({ domain: 'arm', filePath: `faq.csv#${k + 2}`, title: question, content: `Answer ${k}: check the zebra panel, row ${k}.` }),
      drafts: Array.from({ length: k + 1 }, (_, c) => ({ content: `Answer ${k}, part ${c}: check the zebra panel.` })),
    }));
    const shownDuring: number[] = [];
    const step: BackgroundStep = async (work) => {
      const result = await work();
      shownDuring.push((await stack.documents.list(T6, {})).items.length);
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
    await stack.knowledge.upsertMany(
      T7,
      rows.map((r) => r.doc),
      { prepared: new Map(rows.map((r) => [r.doc.filePath, r.drafts])) },
    );
    expect(await frequencies(T6)).toEqual(await frequencies(T7));
    expect(await stack.lexical.stats(T6)).toEqual(await stack.lexical.stats(T7));
  });
});
