import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@arbiter/database';
import { asTenantId } from '@arbiter/common';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../../test/support/no-audit.js';
import { RETRIEVAL_ENTITIES } from '../entities/index.js';
import { KnowledgeRepository } from '../knowledge.repository.js';
import { KnowledgeService } from '../knowledge.service.js';
import { LexicalRepository } from '../lexical.repository.js';
import { RetrievalSettingsRepository } from '../retrieval-settings.repository.js';
import { RetrievalSettingsService } from '../retrieval-settings.service.js';
import { VectorIndexService } from '../vector-index.service.js';
import { VectorSearchRepository } from '../vector-search.repository.js';
import { FILE_PART_BYTES } from './file-parts.js';
import { KnowledgeFilesRepository, type NewUpload } from './knowledge-files.repository.js';

const T1 = asTenantId('00000000-0000-4000-8000-000000000011');
const T2 = asTenantId('00000000-0000-4000-8000-000000000012');
const form = { domain: 'manuals', keywords: ['k'], metadata: { lang: 'en' } };

/** Storage of uploaded files (docs/documents.md "Upload", "Storage") on PGlite and PostgreSQL. */
const noRecord = (): Promise<void> => Promise.resolve();

describe('KnowledgeFilesRepository (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let files: KnowledgeFilesRepository;
  let knowledge: KnowledgeService;
  const provider = new LocalEmbeddingProvider({ dimension: 64 });
  const space = { model: provider.id, dim: provider.dimension };

  const upload = (over: Partial<NewUpload> = {}): NewUpload => ({
    files: [{ seq: 0, fileName: 'manual.pdf', mediaType: 'application/pdf', sha256: 'a'.repeat(64), bytes: Buffer.from('%PDF-1.7 bytes') }],
    refused: [{ seq: 1, fileName: 'photo.png', error: { code: 'UNSUPPORTED_TYPE', message: 'no' } }],
    form,
    idempotencyKey: null,
    requestHash: 'h'.repeat(64),
    ...over,
  });
  const count = async (table: string) =>
    Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [T1])).rows[0]!.n);
  /** A document made from `fileId`, written the way the import job writes it. */
  const documentFrom = async (fileId: string, filePath: string, text: string) => {
    const [written] = await knowledge.upsertMany(
      T1,
      [
        {
          domain: 'manuals',
          filePath,
          title: 'Manual',
          content: text,
          keywords: [],
          metadata: {},
          contentHash: filePath + text,
          source: { fileId, mediaType: 'application/pdf', pageCount: 2 },
        },
      ],
      { prepared: new Map([[filePath, [{ content: text, page: 1, pageEnd: 2, section: ['1 Setup'] }]]]) },
    );
    if (!written || written instanceof Error) throw new Error('not written');
    return written.document.id;
  };

  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES });
    db = medium.db;
    files = new KnowledgeFilesRepository(medium.database);
    const repo = new KnowledgeRepository(medium.database);
    knowledge = new KnowledgeService(
      repo,
      new RetrievalSettingsService(new RetrievalSettingsRepository(medium.database), provider, noAudit()),
      new LexicalRepository(medium.database),
      provider,
      noAudit(),
    );
    await new VectorIndexService(new VectorSearchRepository(medium.database), provider).onModuleInit();
  }, 60_000);
  afterAll(() => medium?.close());

  it('stores an upload in one transaction: the files, the import and an item per file (pending or refused)', async () => {
    const stored = await files.store(T1, upload(), noRecord);
    expect(stored).not.toBeNull();
    const items = await files.items(T1, stored!.importId);
    expect(items.map((i) => [i.seq, i.fileName, i.status, i.error?.code ?? null, i.mediaType])).toEqual([
      [0, 'manual.pdf', null, null, 'application/pdf'],
      [1, 'photo.png', 'failed', 'UNSUPPORTED_TYPE', null],
    ]);
    expect(await files.isFileImport(T1, stored!.importId)).toBe(true);
    const [fileId] = await files.pendingFileIds(T1, stored!.importId);
    expect(await files.read(T1, fileId!)).toMatchObject({ fileName: 'manual.pdf', mediaType: 'application/pdf', sha256: 'a'.repeat(64) });
    expect(Buffer.from((await files.read(T1, fileId!))!.bytes).toString()).toBe('%PDF-1.7 bytes');
    // Tenant-scoped: another tenant reads nothing.
    expect(await files.read(T2, fileId!)).toBeNull();
    expect(await files.items(T2, stored!.importId)).toEqual([]);
  });

  it('rolls the whole upload back when a statement fails: no file, no import', async () => {
    const before = { files: await count('knowledge_file'), imports: await count('knowledge_import') };
    // A file name over the column's 1,000 characters fails the file's insert, before the upload's transaction.
    await expect(
      files.store(
        T1,
        upload({ files: [{ seq: 0, fileName: 'x'.repeat(1001), mediaType: 'text/plain', sha256: 'b'.repeat(64), bytes: Buffer.from('x') }] }),
        noRecord,
      ),
    ).rejects.toThrow();
    expect({ files: await count('knowledge_file'), imports: await count('knowledge_import') }).toEqual(before);
    const parts = await count('knowledge_file_part');
    // The second file's row fails after the first file's bytes are in: the first file goes too.
    await expect(
      files.store(
        T1,
        upload({
          files: [
            { seq: 0, fileName: 'first.pdf', mediaType: 'application/pdf', sha256: 'b'.repeat(64), bytes: Buffer.alloc(FILE_PART_BYTES + 5, 3) },
            { seq: 1, fileName: 'y'.repeat(1001), mediaType: 'text/plain', sha256: 'b'.repeat(64), bytes: Buffer.from('y') },
          ],
        }),
        noRecord,
      ),
    ).rejects.toThrow();
    expect({ files: await count('knowledge_file'), imports: await count('knowledge_import') }).toEqual(before);
    expect(await count('knowledge_file_part')).toBe(parts);
    // The transaction fails after the bytes are in (the audit entry): the files written before it go too.
    const big = Buffer.alloc(2 * FILE_PART_BYTES + 10, 7);
    await expect(
      files.store(T1, upload({ files: [{ seq: 0, fileName: 'big.pdf', mediaType: 'application/pdf', sha256: 'c'.repeat(64), bytes: big }] }), () =>
        Promise.reject(new Error('audit failed')),
      ),
    ).rejects.toThrow('audit failed');
    expect({ files: await count('knowledge_file'), imports: await count('knowledge_import') }).toEqual(before);
    expect(await count('knowledge_file_part')).toBe(parts);
  });

  it("writes a file's bytes before the upload's transaction (receiving), which marks the file received", async () => {
    const big = Buffer.alloc(3 * FILE_PART_BYTES, 9);
    let during: { parts: number; written_here: number } | undefined;
    const stored = await files.store(
      T1,
      upload({ refused: [], files: [{ seq: 0, fileName: 'three-parts.pdf', mediaType: 'application/pdf', sha256: 'd'.repeat(64), bytes: big }] }),
      async (tx) => {
        // xmin is the id of the transaction that wrote a row: none of the parts is this transaction's.
        const row = await sql<{ parts: number; written_here: number }>`
          SELECT count(*)::int AS parts, count(*) FILTER (WHERE p.xmin::text::bigint = pg_current_xact_id()::text::bigint % 4294967296)::int AS written_here
            FROM knowledge_file f JOIN knowledge_file_part p ON p.tenant_id = f.tenant_id AND p.file_id = f.id
           WHERE f.tenant_id = ${T1} AND f.file_name = 'three-parts.pdf'`.execute(tx);
        during = row.rows[0];
      },
    );
    // In the upload's transaction the file's three parts were already written, by statements before it.
    expect(during).toEqual({ parts: 3, written_here: 0 });
    const [fileId] = await files.pendingFileIds(T1, stored!.importId);
    const after = await db.pool.query<{ receiving: boolean }>('SELECT receiving FROM knowledge_file WHERE tenant_id = $1 AND id = $2', [T1, fileId]);
    expect(after.rows).toEqual([{ receiving: false }]);
    expect(Buffer.from((await files.read(T1, fileId!))!.bytes).equals(big)).toBe(true);
  });

  it("deletes a tenant's files left receiving by an upload that died, once an hour old, at its next upload", async () => {
    const abandoned = async (tenantId: string, age: string) =>
      (
        await db.pool.query<{ id: string }>(
          `INSERT INTO knowledge_file (tenant_id, file_name, media_type, byte_size, sha256, receiving, created_at)
           VALUES ($1, 'died.pdf', 'application/pdf', 1, $2, true, now() - $3::interval) RETURNING id`,
          [tenantId, 'e'.repeat(64), age],
        )
      ).rows[0]!.id;
    const old = await abandoned(T1, '2 hours');
    const fresh = await abandoned(T1, '1 minute');
    const otherTenants = await abandoned(T2, '2 hours');
    await files.store(T1, upload(), noRecord);
    const left = await db.pool.query<{ id: string }>('SELECT id FROM knowledge_file WHERE receiving ORDER BY id');
    expect(left.rows.map((r) => r.id).sort()).toEqual([fresh, otherTenants].sort());
    expect(left.rows.map((r) => r.id)).not.toContain(old);
  });

  it('an Idempotency-Key stores one upload: the second store answers null and writes nothing', async () => {
    expect(await files.store(T1, upload({ idempotencyKey: 'key-1' }), noRecord)).not.toBeNull();
    const before = await count('knowledge_file');
    expect(await files.store(T1, upload({ idempotencyKey: 'key-1' }), noRecord)).toBeNull();
    expect(await count('knowledge_file')).toBe(before);
    expect(await files.findByIdempotencyKey(T1, 'key-1')).toMatchObject({ requestHash: 'h'.repeat(64), source: 'files' });
    expect(await files.findByIdempotencyKey(T2, 'key-1')).toBeNull();
    expect(await files.store(T2, upload({ idempotencyKey: 'key-1' }), noRecord)).not.toBeNull();
  });

  it('keeps a file while a document uses it, and deletes it with its last document', async () => {
    const stored = await files.store(T1, upload({ refused: [] }), noRecord);
    const [fileId] = await files.pendingFileIds(T1, stored!.importId);
    const first = await documentFrom(fileId!, 'faq.csv#2', 'Row two answer.');
    await documentFrom(fileId!, 'faq.csv#3', 'Row three answer.');
    await files.deleteUnused(T1, fileId!);
    expect(await files.read(T1, fileId!)).not.toBeNull();
    expect((await files.documentsOfFile(T1, 'faq.csv')).map((d) => d.filePath).sort()).toEqual(['faq.csv#2', 'faq.csv#3']);
    expect(await files.fileOfDocument(T1, first)).toMatchObject({ exists: true, file: { fileName: 'manual.pdf', mediaType: 'application/pdf' } });
    expect(await files.fileOfDocument(T2, first)).toEqual({ exists: false, file: null });
    await knowledge.delete(T1, first);
    expect(await files.read(T1, fileId!)).not.toBeNull();
    const [last] = await files.documentsOfFile(T1, 'faq.csv');
    await knowledge.delete(T1, last!.id);
    expect(await files.read(T1, fileId!)).toBeNull();
  });

  it("a re-upload reads the old vectors a page of chunks at a time: every chunk once, the tenant's only", async () => {
    const one = await files.store(T1, upload({ refused: [] }), noRecord);
    const [fileId] = await files.pendingFileIds(T1, one!.importId);
    const manual = async (filePath: string, paragraphs: number) => {
      const drafts = Array.from({ length: paragraphs }, (_, k) => ({
        content: `${filePath} paragraph ${k}.`,
        page: k + 1,
        pageEnd: k + 1,
        section: [`${k} Part`],
      }));
      const [written] = await knowledge.upsertMany(
        T1,
        [
          {
            domain: 'manuals',
            filePath,
            title: filePath,
            content: drafts.map((d) => d.content).join('\n'),
            keywords: [],
            metadata: {},
            contentHash: filePath,
            source: { fileId: fileId!, mediaType: 'application/pdf', pageCount: paragraphs },
          },
        ],
        { prepared: new Map([[filePath, drafts]]) },
      );
      if (!written || written instanceof Error) throw new Error('not written');
      return written.document.id;
    };
    const ids = [await manual('paged-a.pdf', 5), await manual('paged-b.pdf', 3)];
    const whole = await files.vectorsOf(T1, ids, space);
    expect(whole.map((v) => v.content).sort()).toEqual(
      [...[0, 1, 2, 3, 4].map((k) => `paged-a.pdf paragraph ${k}.`), ...[0, 1, 2].map((k) => `paged-b.pdf paragraph ${k}.`)].sort(),
    );
    // Pages that end inside a document, at its end, and one past the last chunk.
    for (const pageSize of [1, 2, 3, 8])
      expect((await files.vectorsOf(T1, ids, space, pageSize)).map((v) => [v.content, v.vector])).toEqual(whole.map((v) => [v.content, v.vector]));
    expect(await files.vectorsOf(T2, ids, space, 2)).toEqual([]);
  });

  it('a re-upload replaces the document and its file in one write, with the vectors of unchanged chunks to reuse', async () => {
    const one = await files.store(T1, upload({ refused: [] }), noRecord);
    const [oldFile] = await files.pendingFileIds(T1, one!.importId);
    const id = await documentFrom(oldFile!, 'guide.pdf', 'Unchanged paragraph.');
    const vectors = await files.vectorsOf(T1, [id], space);
    expect(vectors).toHaveLength(1);
    expect(vectors[0]).toMatchObject({ title: 'Manual', content: 'Unchanged paragraph.', section: ['1 Setup'] });
    expect(vectors[0]!.vector).toHaveLength(64);
    // Embedded with its section path (docs/retrieval.md "Chunk context").
    expect(vectors[0]!.vector).toEqual(
      await provider.embedDocuments(['Manual\n1 Setup\nUnchanged paragraph.']).then((v) => v[0]!.map((x) => expect.closeTo(x, 5))),
    );
    const two = await files.store(T1, upload({ refused: [] }), noRecord);
    const [newFile] = await files.pendingFileIds(T1, two!.importId);
    expect(await documentFrom(newFile!, 'guide.pdf', 'Changed paragraph.')).toBe(id);
    expect(await files.read(T1, oldFile!)).toBeNull();
    expect((await files.documentsOfFile(T1, 'guide.pdf')).map((d) => d.sha256)).toEqual(['a'.repeat(64)]);
    const chunk = await db.pool.query<{ page: number; page_end: number; section: string[] }>(
      'SELECT page, page_end, section FROM knowledge_chunk WHERE tenant_id = $1 AND document_id = $2',
      [T1, id],
    );
    expect(chunk.rows).toEqual([{ page: 1, page_end: 2, section: ['1 Setup'] }]);
  });
  it('stores a file of several parts (migration 0254) and reads it back byte for byte, for the job and for download', async () => {
    // 2.5 parts of bytes that differ at every offset (a part out of order or dropped would show).
    const bytes = Buffer.alloc(Math.floor(FILE_PART_BYTES * 2.5));
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >>> 11)) & 0xff;
    const stored = await files.store(
      T1,
      upload({ refused: [], files: [{ seq: 0, fileName: 'big.pdf', mediaType: 'application/pdf', sha256: 'c'.repeat(64), bytes }] }),
      noRecord,
    );
    const [fileId] = await files.pendingFileIds(T1, stored!.importId);
    const parts = await db.pool.query<{ seq: number; n: number }>(
      'SELECT seq, length(bytes) AS n FROM knowledge_file_part WHERE tenant_id = $1 AND file_id = $2 ORDER BY seq',
      [T1, fileId],
    );
    expect(parts.rows).toEqual([
      { seq: 0, n: FILE_PART_BYTES },
      { seq: 1, n: FILE_PART_BYTES },
      { seq: 2, n: bytes.length - 2 * FILE_PART_BYTES },
    ]);
    const inline = await db.pool.query('SELECT bytes FROM knowledge_file WHERE tenant_id = $1 AND id = $2', [T1, fileId]);
    expect(inline.rows).toEqual([{ bytes: null }]);
    const read = await files.read(T1, fileId!);
    expect(read!.bytes.byteOffset).toBe(0);
    // Its own ArrayBuffer: the extraction runner can transfer it without a copy.
    expect(read!.bytes.buffer.byteLength).toBe(bytes.length);
    expect(Buffer.from(read!.bytes).equals(bytes)).toBe(true);
    const id = await documentFrom(fileId!, 'big.pdf', 'Some text.');
    const downloaded = await files.fileOfDocument(T1, id);
    expect(downloaded.file?.bytes.equals(bytes)).toBe(true);
    // The parts go with their file.
    await knowledge.delete(T1, id);
    expect(await files.read(T1, fileId!)).toBeNull();
    expect((await db.pool.query('SELECT 1 FROM knowledge_file_part WHERE tenant_id = $1 AND file_id = $2', [T1, fileId])).rows).toEqual([]);
  });

  it('reads a file stored before migration 0254 (its bytes in knowledge_file.bytes) as before', async () => {
    const legacy = '00000000-0000-4000-8000-0000000000f1';
    await db.pool.query(
      `INSERT INTO knowledge_file (tenant_id, id, file_name, media_type, byte_size, sha256, bytes) VALUES ($1, $2, 'old.txt', 'text/plain', 9, $3, $4)`,
      [T1, legacy, 'd'.repeat(64), Buffer.from('old bytes')],
    );
    expect(Buffer.from((await files.read(T1, legacy))!.bytes).toString()).toBe('old bytes');
    const id = await documentFrom(legacy, 'old.txt', 'Old text.');
    expect((await files.fileOfDocument(T1, id)).file?.bytes.toString()).toBe('old bytes');
  });

  it('a file whose parts do not add up to its recorded size fails to read instead of being parsed short', async () => {
    const stored = await files.store(
      T1,
      upload({
        refused: [],
        files: [{ seq: 0, fileName: 'cut.pdf', mediaType: 'application/pdf', sha256: 'e'.repeat(64), bytes: Buffer.alloc(FILE_PART_BYTES + 10, 1) }],
      }),
      noRecord,
    );
    const [fileId] = await files.pendingFileIds(T1, stored!.importId);
    await db.pool.query('DELETE FROM knowledge_file_part WHERE tenant_id = $1 AND file_id = $2 AND seq = 1', [T1, fileId]);
    await expect(files.read(T1, fileId!)).rejects.toThrow(/parts hold 1048576 of the recorded 1048586 bytes/);
  });
});
