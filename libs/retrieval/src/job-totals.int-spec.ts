import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, type TenantId } from '@arbiter/common';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { walkBatches } from '../../../test/support/batch-walk.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { KnowledgeImportRepository } from './knowledge-import.repository.js';
import { KnowledgeRepository, type NewDocument, type VectorSpace } from './knowledge.repository.js';
import { LexicalRepository } from './lexical.repository.js';
import { LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';

const T1 = asTenantId('00000000-0000-4000-8000-0000000000c1');
const T2 = asTenantId('00000000-0000-4000-8000-0000000000c2');
/** Ids in a known order; odd numbers are T1's documents, even ones T2's, so a cursor steps over the other tenant's ids. */
const id = (n: number) => `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NEW: VectorSpace = { model: 'total-test-new', dim: 3 };
const OLD = 'total-test-old';

describe('job totals of the retrieval jobs agree with their batch queries (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let knowledge: KnowledgeRepository;
  let lexical: LexicalRepository;
  let imports: KnowledgeImportRepository;

  /** A document row as the job reads it; `chunks` lists the vector spaces it has chunks in. */
  const seedDocument = async (tenantId: TenantId, n: number, d: { chunkCount: number; chunks: string[]; lexicalVersion: number }) => {
    await db.pool.query(
      `INSERT INTO knowledge_document (id, tenant_id, domain, file_path, title, content, content_hash, chunk_count, lexical_version)
       VALUES ($1, $2, 'arm', $3, $3, 'content', repeat('0', 64), $4, $5)`,
      [id(n), tenantId, `doc-${n}.md`, d.chunkCount, d.lexicalVersion],
    );
    for (const model of d.chunks) {
      await db.pool.query(
        `INSERT INTO knowledge_chunk (tenant_id, document_id, domain, chunk_index, content, embedding, embedding_model, embedding_dim)
         VALUES ($1, $2, 'arm', 0, 'content', '[1,0,0]', $3, 3)`,
        [tenantId, id(n), model],
      );
    }
  };

  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 });
    db = medium.db;
    knowledge = new KnowledgeRepository(medium.database);
    lexical = new LexicalRepository(medium.database);
    imports = new KnowledgeImportRepository(medium.database);
    const V = LEXICAL_ANALYZER_VERSION;
    // T1: re-embed counts 1, 5, 9, 11 (chunked, none in NEW); lexical re-index counts 3, 5, 7, 11 (version <> V).
    await seedDocument(T1, 1, { chunkCount: 2, chunks: [OLD], lexicalVersion: V });
    await seedDocument(T1, 3, { chunkCount: 1, chunks: [NEW.model], lexicalVersion: 0 });
    await seedDocument(T1, 5, { chunkCount: 1, chunks: [], lexicalVersion: V - 1 });
    await seedDocument(T1, 7, { chunkCount: 0, chunks: [], lexicalVersion: V + 1 });
    await seedDocument(T1, 9, { chunkCount: 1, chunks: [OLD], lexicalVersion: V });
    await seedDocument(T1, 11, { chunkCount: 1, chunks: [OLD], lexicalVersion: 0 });
    await seedDocument(T1, 13, { chunkCount: 1, chunks: [OLD, NEW.model], lexicalVersion: V });
    // T2: every document needs both jobs; none of them may count for T1.
    for (const n of [2, 4, 6, 8]) await seedDocument(T2, n, { chunkCount: 1, chunks: [OLD], lexicalVersion: 0 });
  }, 60_000);
  afterAll(() => medium?.close());

  it('retrieval.reembed: countDocumentsMissingSpace counts what documentsMissingSpace returns, per tenant', async () => {
    expect(await knowledge.countDocumentsMissingSpace(T1, NEW, null)).toBe(4);
    expect(await knowledge.countDocumentsMissingSpace(T1, NEW, id(5))).toBe(2);
    expect(await knowledge.countDocumentsMissingSpace(T1, NEW, id(11))).toBe(0);
    const walk = await walkBatches(
      (after) => knowledge.documentsMissingSpace(T1, NEW, after, 2),
      (after) => knowledge.countDocumentsMissingSpace(T1, NEW, after),
    );
    expect(walk.ids).toEqual([id(1), id(5), id(9), id(11)]);
    expect(walk.counts).toEqual(walk.remaining);
    // the other tenant's documents are its own total
    expect(await knowledge.countDocumentsMissingSpace(T2, NEW, null)).toBe(4);
    expect(await knowledge.countDocumentsMissingSpace(T2, { model: OLD, dim: 3 }, null)).toBe(0);
  });

  it('retrieval.lexical-reindex: countStaleDocuments counts what staleDocuments returns, per tenant', async () => {
    const V = LEXICAL_ANALYZER_VERSION;
    expect(await lexical.countStaleDocuments(T1, V, null)).toBe(4);
    expect(await lexical.countStaleDocuments(T1, V, id(4))).toBe(3);
    const walk = await walkBatches(
      (after) => lexical.staleDocuments(T1, V, after, 3),
      (after) => lexical.countStaleDocuments(T1, V, after),
    );
    expect(walk.ids).toEqual([id(3), id(5), id(7), id(11)]);
    expect(walk.counts).toEqual(walk.remaining);
    expect(await lexical.countStaleDocuments(T2, V, null)).toBe(4);
    expect(await lexical.countStaleDocuments(T2, 0, null)).toBe(0);
  });

  it('retrieval.import: countPending counts the items pending returns until the job has recorded them all, per import and tenant', async () => {
    const document = (seq: number): NewDocument => ({
      domain: 'arm',
      filePath: `import-${seq}.md`,
      title: `Import ${seq}`,
      content: 'content',
      keywords: [],
      metadata: {},
      contentHash: '0'.repeat(64),
    });
    const item = (seq: number, failed = false) => ({
      seq,
      filePath: `import-${seq}.md`,
      document: failed ? null : document(seq),
      failed: failed ? { index: seq, filePath: `import-${seq}.md`, status: 'failed' as const, error: { code: 'VALIDATION', message: 'refused' } } : null,
    });
    const { id: importId } = await imports.create(T1, [item(0), item(1), item(2, true), item(3), item(4), item(5)], () => Promise.resolve());
    const other = await imports.create(T1, [item(0), item(1)], () => Promise.resolve());
    // The other tenant holds an import under the same id (keys are per tenant) with pending items of its own.
    await db.pool.query('INSERT INTO knowledge_import (tenant_id, id, total) VALUES ($1, $2, 3)', [T2, importId]);
    await db.pool.query(`INSERT INTO knowledge_import_item (tenant_id, import_id, seq, document) SELECT $1, $2, s, '{}'::jsonb FROM generate_series(0, 2) s`, [
      T2,
      importId,
    ]);
    await imports.record(T1, importId, [{ seq: 0, status: 'created', documentId: id(1) }]);

    expect(await imports.countPending(T1, importId)).toBe(4);
    expect(await imports.countPending(T1, other.id)).toBe(2);
    expect(await imports.countPending(T2, importId)).toBe(3);

    // As the job: take a batch, record its outcomes, until none is pending; the batches add up to the total.
    const total = await imports.countPending(T1, importId);
    const done: number[] = [];
    for (;;) {
      const batch = await imports.pending(T1, importId, 3);
      if (!batch.length) break;
      done.push(...batch.map((b) => b.seq));
      await imports.record(
        T1,
        importId,
        batch.map((b, k) => (k === 0 ? { seq: b.seq, status: 'failed', error: { code: 'X', message: 'x' } } : { seq: b.seq, status: 'created' })),
      );
      expect(await imports.countPending(T1, importId)).toBe(total - done.length);
    }
    expect(done).toEqual([1, 3, 4, 5]);
    expect(await imports.countPending(T1, importId)).toBe(0);
    expect(await imports.countPending(T1, other.id)).toBe(2);
    expect(await imports.countPending(T2, importId)).toBe(3);
  });
});
