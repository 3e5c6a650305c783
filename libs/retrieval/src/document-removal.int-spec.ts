import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DomainException, type TenantId } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';
import { afterStep, controllerManual, KnowledgeStack, MANUAL_DRAFTS, testTenant } from './knowledge-stack.int-fixture.js';
import { KnowledgeChunksService } from './knowledge-chunks.service.js';
import { RetrievalErrorCode } from './retrieval.exception.js';
import { noAudit } from '../../../test/support/no-audit.js';

const tenant = (n: number) => testTenant(`e${n}`);

/**
 * The steps of deleting the seven-chunk manual in groups of 3: its chunk count, the terms of three groups, the hiding
 * transaction (step 5), three groups of postings, three of chunks, the row, the sweep.
 */
const HIDING_STEP = 5;

/** A document's removal in groups (docs/hot-paths.md "A large document's removal in groups"). */
describe('a document removed in groups (integration)', () => {
  let stack: KnowledgeStack;

  beforeAll(async () => {
    stack = await KnowledgeStack.start();
  }, 60_000);
  afterAll(() => stack?.close());

  const count = (table: string, tenantId: TenantId) => stack.count(table, tenantId);
  const frequencies = (tenantId: TenantId) => stack.frequencies(tenantId);
  const visibleParts = (tenantId: TenantId, id: string) => stack.visibleParts(tenantId, id);

  /** Rows of the tenant: documents, chunks, postings. */
  const rows = async (tenantId: TenantId) => [
    await count('knowledge_document', tenantId),
    await count('knowledge_chunk', tenantId),
    await count('knowledge_term', tenantId),
  ];

  /** A tenant with a note and the seven-chunk manual; answers the manual's id. */
  async function seed(tenantId: TenantId): Promise<string> {
    await stack.knowledge.upsert(tenantId, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const [written] = await stack.knowledge.upsertMany(tenantId, [controllerManual()], { prepared: new Map([['manual.pdf', MANUAL_DRAFTS]]) });
    if (written instanceof DomainException) throw written;
    return written.document.id;
  }

  it('is counted in groups, then gone for every reader at once, its statistics out exactly; its rows go in groups', async () => {
    const [t, twin] = [tenant(1), tenant(2)];
    const id = await seed(t);
    // The twin never had the manual: what the tenant's statistics must be from the hiding transaction on.
    await stack.knowledge.upsert(twin, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const [stats, df] = [await stack.lexical.stats(twin), await frequencies(twin)];
    const shown = ['lexical', 'vector', 'list', 'get', 'path', 'chunks'];
    expect(await visibleParts(t, id)).toEqual(shown);
    const observed: { seen: string[]; rows: number[]; counted: boolean }[] = [];
    const step: BackgroundStep = async (work) => {
      const result = await work();
      const counted = JSON.stringify([await stack.lexical.stats(t), await frequencies(t)]) === JSON.stringify([stats, df]);
      observed.push({ seen: await visibleParts(t, id), rows: await rows(t), counted });
      return result;
    };
    const uncount = jest.spyOn(stack.lexical, 'uncountDocument');
    await stack.knowledge.delete(t, id, { step, groupChunks: 3 });
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
    expect(await stack.lexical.stats(t)).toEqual(stats);
    const again = await stack.knowledge.delete(t, id).catch((e: unknown) => e);
    expect((again as DomainException).code).toBe(RetrievalErrorCode.DOCUMENT_NOT_FOUND);
  });

  it('a chunk edited between the count and the lock: the hiding transaction counts again, exactly', async () => {
    const [t, twin] = [tenant(6), tenant(7)];
    const id = await seed(t);
    await stack.knowledge.upsert(twin, { domain: 'arm', filePath: 'other.md', title: 'Zebra', content: 'A zebra crossing note.' });
    const edits = new KnowledgeChunksService(stack.chunks, stack.lexical, stack.provider, noAudit());
    const edit = () => edits.edit(t, id, '1', { content: 'Quokka wombat platypus: an edited chunk of unusual words.' }).then(() => undefined);
    await stack.knowledge.delete(t, id, { step: afterStep(HIDING_STEP - 1, edit), groupChunks: 3 });
    expect(await frequencies(t)).toEqual(await frequencies(twin));
    expect(await stack.lexical.stats(t)).toEqual(await stack.lexical.stats(twin));
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
    await stack.knowledge.delete(t, id, { step: failing, groupChunks: 3 });
    expect(await visibleParts(t, id)).toEqual([]);
    expect((await rows(t))[1]).toBe(1 + MANUAL_DRAFTS.length);
    // Another tenant cannot finish it: its id is not theirs.
    expect(await stack.knowledge.delete(tenant(8), id).catch((e: unknown) => e)).toMatchObject({ code: RetrievalErrorCode.DOCUMENT_NOT_FOUND });
    expect((await rows(t))[1]).toBe(1 + MANUAL_DRAFTS.length);
    await stack.knowledge.delete(t, id);
    expect((await rows(t)).slice(0, 2)).toEqual([1, 1]);
    expect((await stack.knowledge.delete(t, id).catch((e: unknown) => e)) as DomainException).toMatchObject({ code: RetrievalErrorCode.DOCUMENT_NOT_FOUND });
  });

  it("what a dead process left hidden goes with the tenant's next delete, once untouched for an hour", async () => {
    const t = tenant(4);
    const id = await seed(t);
    const death = () => Promise.reject(new Error('process died'));
    await expect(stack.knowledge.delete(t, id, { step: afterStep(HIDING_STEP, death), groupChunks: 3 })).rejects.toThrow('process died');
    expect(await visibleParts(t, id)).toEqual([]);
    // An hour later the tenant deletes another document: the leftover goes too. A recent hidden document stays.
    await stack.db.pool.query(`UPDATE knowledge_document SET updated_at = now() - interval '61 minutes' WHERE tenant_id = $1 AND writing`, [t]);
    const recent = (await stack.documents.createWriting(t, [{ doc: controllerManual('recent.pdf'), chunkCount: 2 }])).get('recent.pdf') as string;
    const note = (await stack.documents.findByPath(t, 'other.md'))!.id;
    await stack.knowledge.delete(t, note);
    const { rows: left } = await stack.db.pool.query<{ id: string }>('SELECT id FROM knowledge_document WHERE tenant_id = $1', [t]);
    expect(left.map((r) => r.id)).toEqual([recent]);
    expect(await count('knowledge_chunk', t)).toBe(0);
  });

  it('a re-post of its path meanwhile takes the row over; a re-index that read it before leaves it alone', async () => {
    const t = tenant(5);
    const id = await seed(t);
    const step = afterStep(HIDING_STEP, async () => {
      // A re-index that read the manual before its delete began now writes its postings: nothing changes.
      const [before, df] = [await stack.lexical.stats(t), await frequencies(t)];
      await stack.lexical.transaction((tx) =>
        stack.lexical.replaceDocuments(tx, t, [{ documentId: id, domain: 'arm', chunks: [{ chunkIndex: 0, terms: ['zebra'], impacts: [1], length: 1 }] }], 1),
      );
      expect([await stack.lexical.stats(t), await frequencies(t)]).toEqual([before, df]);
      // An operator posts a document at the manual's path: it takes the hidden row over, as a new document.
      await stack.knowledge.upsert(t, { domain: 'arm', filePath: 'manual.pdf', title: 'Posted', content: 'Posted as JSON: the zebra note.' });
    });
    await stack.knowledge.delete(t, id, { step, groupChunks: 3 });
    expect(await stack.documents.findByPath(t, 'manual.pdf')).toMatchObject({ id, title: 'Posted', chunkCount: 1, version: 1 });
    expect(await rows(t)).toEqual([2, 2, await count('knowledge_term', t)]);
    const { rows: df } = await stack.db.pool.query<{ term: string; n: string }>(
      'SELECT term, count(*) AS n FROM knowledge_term WHERE tenant_id = $1 GROUP BY term ORDER BY term',
      [t],
    );
    expect(await frequencies(t)).toEqual(Object.fromEntries(df.map((r) => [r.term, Number(r.n)])));
    expect((await stack.lexical.stats(t)).chunkCount).toBe(2);
  });
});
