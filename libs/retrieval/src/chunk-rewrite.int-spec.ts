import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TenantId } from '@arbiter/common';
import { KnowledgeStack, MANUAL_DRAFTS, testTenant } from './knowledge-stack.int-fixture.js';
import { KnowledgeChunksService } from './knowledge-chunks.service.js';
import { type ChunkDraft, normalizeDocument, type UpsertResult } from './knowledge.service.js';
import { analyzeText } from './lexical/text-analyzer.js';
import { noAudit } from '../../../test/support/no-audit.js';

const [T1, T2, T3, T4, T5] = [1, 2, 3, 4, 5].map((n) => testTenant(`e${n}`));

const manual = (drafts: readonly ChunkDraft[], title = 'Controller manual') =>
  normalizeDocument({ domain: 'arm', filePath: 'manual.pdf', title, content: drafts.map((d) => d.content).join('\n\n') });

/**
 * The manual's second version: chunk 2's text changed (as many words), chunk 4 moved to another page, the last chunk
 * gone; chunks 0, 1, 3 and 5 as they were.
 */
const REVISED: ChunkDraft[] = MANUAL_DRAFTS.slice(0, 6).map((d, k) =>
  k === 2 ? { ...d, content: d.content.replace('charlie', 'kilo') } : k === 4 ? { ...d, page: 9 } : d,
);

/** A re-post keeps the rows of its unchanged chunks (docs/hot-paths.md "A re-post keeps its unchanged chunks"). */
describe('a replaced document keeps the rows of its unchanged chunks (integration)', () => {
  let stack: KnowledgeStack;

  beforeAll(async () => {
    stack = await KnowledgeStack.start();
  }, 60_000);
  afterAll(() => stack?.close());

  const write = (tenantId: TenantId, drafts: readonly ChunkDraft[], title?: string) =>
    stack.knowledge.upsertMany(tenantId, [manual(drafts, title)], { prepared: new Map([['manual.pdf', drafts]]) });

  /** Each chunk's row id, and the transaction that wrote its postings, by chunk index. */
  async function rowsOf(tenantId: TenantId): Promise<Map<number, { id: string; postings: string }>> {
    const { rows } = await stack.db.pool.query<{ chunk_index: number; id: string; postings: string | null }>(
      `SELECT c.chunk_index, c.id::text AS id,
              (SELECT string_agg(DISTINCT k.xmin::text, ',') FROM knowledge_term k
                WHERE k.tenant_id = c.tenant_id AND k.document_id = c.document_id AND k.chunk_index = c.chunk_index) AS postings
         FROM knowledge_chunk c WHERE c.tenant_id = $1 ORDER BY c.chunk_index`,
      [tenantId],
    );
    return new Map(rows.map((r) => [Number(r.chunk_index), { id: r.id, postings: r.postings ?? '' }]));
  }

  const search = async (tenantId: TenantId) => {
    const query = await stack.provider.embedQuery('zebra kilo procedure');
    const { hits } = await stack.lexical.search(tenantId, analyzeText('zebra kilo charlie golf procedure'), stack.space, query, 20);
    return hits.map((h) => [h.chunkIndex, h.score, h.page, h.distance]);
  };

  it('rewrites only the changed chunks, and the result is what writing the new version at once gives', async () => {
    const [first] = await write(T1, MANUAL_DRAFTS);
    const before = await rowsOf(T1);
    expect(before.size).toBe(7);
    for (const row of before.values()) expect(row.postings).not.toBe('');

    const [second] = (await write(T1, REVISED)) as UpsertResult[];
    expect(second).toMatchObject({ status: 'updated', document: { id: (first as UpsertResult).document.id, version: 2, chunkCount: 6 } });
    const after = await rowsOf(T1);
    expect([...after.keys()]).toEqual([0, 1, 2, 3, 4, 5]);
    const keptRows = [...after].filter(([k, row]) => row.id === before.get(k)?.id && row.postings === before.get(k)?.postings).map(([k]) => k);
    expect(keptRows).toEqual([0, 1, 3, 5]);
    // The rewritten ones are new rows with new postings.
    for (const k of [2, 4]) {
      expect(after.get(k)?.id).not.toBe(before.get(k)?.id);
      expect(after.get(k)?.postings).not.toBe(before.get(k)?.postings);
    }

    // The same version written at once in another tenant: the same chunks, frequencies, statistics and scores.
    await write(T2, REVISED);
    const stored = (t: TenantId, id: string) => stack.chunks.stored(t, id, stack.space);
    const [t2] = await stack.documents.list(T2, {}).then((p) => p.items);
    expect((await stored(T1, second.document.id)).map(({ content, page, section }) => ({ content, page, section }))).toEqual(
      (await stored(T2, t2.id)).map(({ content, page, section }) => ({ content, page, section })),
    );
    expect(await stack.frequencies(T1)).toEqual(await stack.frequencies(T2));
    expect(await stack.lexical.stats(T1)).toEqual(await stack.lexical.stats(T2));
    expect(await search(T1)).toEqual(await search(T2));
    expect((await search(T1)).map(([k]) => k)).toContain(2);
  });

  it('writes an edited or disabled chunk again from the new version: edits go with the replaced version', async () => {
    const [first] = (await write(T4, MANUAL_DRAFTS)) as UpsertResult[];
    const edits = new KnowledgeChunksService(stack.chunks, stack.lexical, stack.provider, noAudit());
    await edits.edit(T4, first.document.id, '1', { content: 'Quokka wombat platypus: an edited chunk of unusual words.' });
    await edits.edit(T4, first.document.id, '3', { disabled: true });
    const before = await rowsOf(T4);
    await write(T4, REVISED);
    const after = await rowsOf(T4);
    expect([...after].filter(([k, row]) => row.id === before.get(k)?.id).map(([k]) => k)).toEqual([0, 5]);
    const chunks = await stack.chunks.stored(T4, first.document.id, stack.space);
    expect(chunks.map((c) => [c.content, c.disabled])).toEqual(REVISED.map((d) => [d.content, false]));
    // Exactly the frequencies and statistics of the new version written at once.
    await write(T5, REVISED);
    expect(await stack.frequencies(T4)).toEqual(await stack.frequencies(T5));
    expect(await stack.lexical.stats(T4)).toEqual(await stack.lexical.stats(T5));
  });

  it('rewrites every chunk when the title changes (it is indexed and embedded with each)', async () => {
    await write(T3, MANUAL_DRAFTS);
    const before = await rowsOf(T3);
    await write(T3, MANUAL_DRAFTS, 'Controller manual, second edition');
    const after = await rowsOf(T3);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [k, row] of after) expect(row.id).not.toBe(before.get(k)?.id);
    expect(await stack.lexical.stats(T3)).toMatchObject({ chunkCount: 7 });
  });
});
