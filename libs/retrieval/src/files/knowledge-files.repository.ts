import { Injectable } from '@nestjs/common';
import { mapSliced, type TenantId } from '@arbiter/common';
import { Database, sql, type Tx } from '@arbiter/database';
import type { VectorSpace } from '../knowledge.repository.js';
import type { UploadForm } from './file-documents.js';
import { PartAssembler, splitIntoParts } from './file-parts.js';

/** What an item of a file import holds until the job has made its documents (knowledge_import_item.document). */
export interface FileItemPayload extends UploadForm {
  fileId: string;
  fileName: string;
}

/** Why a file was refused or failed: an extraction code (docs/documents.md "Outcomes") and a client-safe message. */
export interface FileError {
  code: string;
  message: string;
}

/** What the import job found out about a file beyond its status (knowledge_import_item.detail). */
export interface FileOutcomeDetail {
  mediaType: string;
  pageCount: number | null;
  documents: number;
  chunks: number;
  /** Chunks whose vector was computed; the others kept the vector of an unchanged chunk (a re-upload). */
  embeddedChunks: number;
  /** A scanned PDF: the pages whose text OCR read (docs/documents.md "Scanned PDFs (OCR)"). */
  ocrPages?: number[];
  warnings: string[];
}

export interface StoredFileItem {
  seq: number;
  fileName: string;
  /** Null while pending. */
  status: 'created' | 'updated' | 'unchanged' | 'failed' | null;
  documentId: string | null;
  error: FileError | null;
  detail: FileOutcomeDetail | null;
  /** Sniffed at the door; null for a file refused before its type was known. */
  mediaType: string | null;
}

export interface NewUpload {
  files: { seq: number; fileName: string; mediaType: string; sha256: string; bytes: Buffer }[];
  refused: { seq: number; fileName: string; error: FileError }[];
  form: UploadForm;
  idempotencyKey: string | null;
  requestHash: string;
}

/** A document made from an uploaded file, with that file's hash and the form it was uploaded with. */
export interface UploadedDocument {
  id: string;
  filePath: string;
  title: string;
  sha256: string;
  domain: string;
  keywords: string[];
  metadata: Record<string, unknown>;
}

/** Parses pgvector's text form `[0.1,-0.2,...]`. */
function parseVector(text: string): number[] {
  return text.slice(1, -1).split(',').map(Number);
}

/** A file still `receiving` this long after its row was written belongs to an upload that died (migration 0265). */
export const ABANDONED_RECEIVING_MS = 60 * 60 * 1000;

/** A chunk's place in its document, the key a paged read continues after. */
interface ChunkPosition {
  documentId: string;
  chunkIndex: number;
}

/** Chunks whose vectors a re-upload reads a statement ({@link KnowledgeFilesRepository.vectorsOf}). */
export const VECTOR_PAGE_CHUNKS = 500;

/**
 * Uploaded files and file imports (docs/documents.md "Upload", "Storage"): `knowledge_file` and the file side
 * of `knowledge_import`/`knowledge_import_item` (owned by the retrieval lib). On the typed data layer.
 */
@Injectable()
export class KnowledgeFilesRepository {
  constructor(private readonly database: Database) {}

  /**
   * Stores an upload: first each accepted file's bytes, the file's row (`receiving`) and then one part per statement,
   * outside any transaction; then one short transaction holds the rest — the import (source `files`, with the
   * Idempotency-Key and request hash), an item per file (pending for a stored file, failed for one refused at the
   * door), the files marked received, and `record` (the audit entry). A large upload thus never holds the embedded
   * database's one backend for all its bytes (docs/hot-paths.md "A large file's write in groups"). When the transaction
   * fails, or another request stored an upload with the same key first (then null is returned), the files written
   * before it are deleted: either way nothing of the upload is kept. Files left `receiving` by a process that died
   * mid-upload are deleted first, once older than {@link ABANDONED_RECEIVING_MS}.
   */
  async store(tenantId: TenantId, upload: NewUpload, record: (tx: Tx, importId: string) => Promise<void>): Promise<{ importId: string } | null> {
    await this.deleteAbandoned(tenantId);
    const fileIds: string[] = [];
    try {
      // Each file's id is known before its parts go in, so a failure midway deletes its row and the parts written.
      for (const file of upload.files) {
        const fileId = await this.insertReceiving(tenantId, file);
        fileIds.push(fileId);
        await this.insertParts(tenantId, fileId, file.bytes);
      }
      const stored = await this.database.transaction(async (tx) => {
        const created = await tx
          .insertInto('knowledge_import')
          .values({
            tenant_id: tenantId,
            total: upload.files.length + upload.refused.length,
            source: 'files',
            idempotency_key: upload.idempotencyKey,
            request_hash: upload.requestHash,
          })
          .onConflict((c) => c.columns(['tenant_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!created) return null;
        const importId = created.id;
        const items: { seq: number; file_path: string; document: string | null; status: string | null; error: string | null; detail: string | null }[] =
          upload.files.map((file, k) => {
            const payload: FileItemPayload = { fileId: fileIds[k], fileName: file.fileName, ...upload.form };
            return {
              seq: file.seq,
              file_path: file.fileName,
              document: JSON.stringify(payload),
              status: null,
              error: null,
              detail: JSON.stringify({ mediaType: file.mediaType }),
            };
          });
        for (const refused of upload.refused) {
          items.push({ seq: refused.seq, file_path: refused.fileName, document: null, status: 'failed', error: JSON.stringify(refused.error), detail: null });
        }
        await tx
          .insertInto('knowledge_import_item')
          .values(items.map((i) => ({ tenant_id: tenantId, import_id: importId, ...i })))
          .execute();
        if (fileIds.length)
          await tx.updateTable('knowledge_file').set({ receiving: false }).where('tenant_id', '=', tenantId).where('id', 'in', fileIds).execute();
        // The upload's audit entry, in its transaction (docs/http-edge.md "Audit log").
        await record(tx, importId);
        return { importId };
      });
      if (!stored) await this.deleteReceiving(tenantId, fileIds);
      return stored;
    } catch (error) {
      await this.deleteReceiving(tenantId, fileIds).catch(() => undefined);
      throw error;
    }
  }

  /** A file's row, `receiving` until its upload commits (migration 0265). */
  private async insertReceiving(tenantId: TenantId, file: NewUpload['files'][number]): Promise<string> {
    const stored = await this.database.db
      .insertInto('knowledge_file')
      .values({
        tenant_id: tenantId,
        file_name: file.fileName,
        media_type: file.mediaType,
        byte_size: file.bytes.length,
        sha256: file.sha256,
        bytes: null,
        receiving: true,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return stored.id;
  }

  /**
   * A file's bytes, one part per statement (migration 0254) outside any transaction: each statement holds the database
   * for one part, and the driver copies at most one part at a time on the API's thread.
   */
  private async insertParts(tenantId: TenantId, fileId: string, bytes: Uint8Array): Promise<void> {
    for (const [seq, part] of splitIntoParts(bytes).entries()) {
      await this.database.db
        .insertInto('knowledge_file_part')
        .values({ tenant_id: tenantId, file_id: fileId, seq, bytes: Buffer.from(part.buffer, part.byteOffset, part.length) })
        .execute();
    }
  }

  /** Deletes files of an upload that did not commit (their parts go with them). */
  private async deleteReceiving(tenantId: TenantId, fileIds: readonly string[]): Promise<void> {
    if (!fileIds.length) return;
    await this.database.db.deleteFrom('knowledge_file').where('tenant_id', '=', tenantId).where('id', 'in', fileIds).where('receiving', '=', true).execute();
  }

  /** Deletes the tenant's files left `receiving` by an upload that never committed (the process died mid-upload). */
  private async deleteAbandoned(tenantId: TenantId): Promise<void> {
    await this.database.db
      .deleteFrom('knowledge_file')
      .where('tenant_id', '=', tenantId)
      .where('receiving', '=', true)
      .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${ABANDONED_RECEIVING_MS / 1000})`)
      .execute();
  }

  /** The upload stored under this Idempotency-Key, if any. */
  async findByIdempotencyKey(
    tenantId: TenantId,
    key: string,
  ): Promise<{ importId: string; jobId: string | null; requestHash: string | null; source: string } | null> {
    const row = await this.database.db
      .selectFrom('knowledge_import')
      .select(['id', 'job_id', 'request_hash', 'source'])
      .where('tenant_id', '=', tenantId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row ? { importId: row.id, jobId: row.job_id, requestHash: row.request_hash, source: row.source } : null;
  }

  /** Whether the import was made from files (its status then lists every file). */
  async isFileImport(tenantId: TenantId, importId: string): Promise<boolean> {
    const row = await this.database.db
      .selectFrom('knowledge_import')
      .select('source')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', importId)
      .executeTakeFirst();
    return row?.source === 'files';
  }

  /** Every file of a file import with its outcome so far, in upload order. */
  async items(tenantId: TenantId, importId: string): Promise<StoredFileItem[]> {
    const rows = await this.database.db
      .selectFrom('knowledge_import_item')
      .select(['seq', 'file_path', 'status', 'document_id', 'error', 'detail'])
      .where('tenant_id', '=', tenantId)
      .where('import_id', '=', importId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => {
      const detail = r.detail as (Partial<FileOutcomeDetail> & { mediaType?: string }) | null;
      return {
        seq: r.seq,
        fileName: r.file_path ?? '',
        status: r.status as StoredFileItem['status'],
        documentId: r.document_id,
        error: r.error as FileError | null,
        detail: detail && detail.documents !== undefined ? (detail as FileOutcomeDetail) : null,
        mediaType: detail?.mediaType ?? null,
      };
    });
  }

  /** The stored files of an import's items still pending (to remove an upload whose job could not be queued). */
  async pendingFileIds(tenantId: TenantId, importId: string): Promise<string[]> {
    const rows = await this.database.db
      .selectFrom('knowledge_import_item')
      .select(sql<string>`document->>'fileId'`.as('file_id'))
      .where('tenant_id', '=', tenantId)
      .where('import_id', '=', importId)
      .where('status', 'is', null)
      .execute();
    return rows.map((r) => r.file_id).filter((id): id is string => typeof id === 'string');
  }

  /**
   * An uploaded file's bytes and what was recorded of it. The bytes come in an array with an ArrayBuffer of its own
   * (the extraction runner transfers it to its thread), read one part per statement (migration 0254).
   */
  async read(tenantId: TenantId, fileId: string): Promise<{ fileName: string; mediaType: string; sha256: string; bytes: Uint8Array } | null> {
    const row = await this.database.db
      .selectFrom('knowledge_file')
      .select(['file_name', 'media_type', 'sha256', 'byte_size', 'bytes'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', fileId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      fileName: row.file_name,
      mediaType: row.media_type,
      sha256: row.sha256,
      bytes: await this.bytesOf(tenantId, fileId, Number(row.byte_size), row.bytes),
    };
  }

  /** A file's bytes: from its parts, or (stored before migration 0254) from `knowledge_file.bytes`. */
  private async bytesOf(tenantId: TenantId, fileId: string, size: number, inline: Buffer | null): Promise<Uint8Array> {
    const assembled = new PartAssembler(size);
    if (inline) {
      assembled.add(inline);
      return assembled.finish();
    }
    for (let seq = 0; ; seq++) {
      const part = await this.database.db
        .selectFrom('knowledge_file_part')
        .select('bytes')
        .where('tenant_id', '=', tenantId)
        .where('file_id', '=', fileId)
        .where('seq', '=', seq)
        .executeTakeFirst();
      if (!part) break;
      assembled.add(part.bytes);
    }
    return assembled.finish();
  }

  /** Deletes an uploaded file no document uses (a refused, failed or unchanged upload's copy). */
  async deleteUnused(tenantId: TenantId, fileId: string): Promise<void> {
    await this.database.db
      .deleteFrom('knowledge_file as f')
      .where('f.tenant_id', '=', tenantId)
      .where('f.id', '=', fileId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('knowledge_document as d')
              .select(sql`1`.as('one'))
              .whereRef('d.tenant_id', '=', 'f.tenant_id')
              .whereRef('d.file_id', '=', 'f.id'),
          ),
        ),
      )
      .execute();
  }

  /** The documents made from an earlier upload of this file name (one, or one per row of an FAQ sheet). */
  async documentsOfFile(tenantId: TenantId, fileName: string): Promise<UploadedDocument[]> {
    const rows = await this.database.db
      .selectFrom('knowledge_document as d')
      .innerJoin('knowledge_file as f', (j) => j.onRef('f.tenant_id', '=', 'd.tenant_id').onRef('f.id', '=', 'd.file_id'))
      .select(['d.id', 'd.file_path', 'd.title', 'f.sha256', 'd.domain', 'd.keywords', 'd.metadata'])
      .where('d.tenant_id', '=', tenantId)
      .where((eb) => eb.or([eb('d.file_path', '=', fileName), eb(sql<boolean>`starts_with(d.file_path, ${`${fileName}#`})`, '=', true)]))
      // One still being written is no earlier upload: its write takes it over or supersedes it (docs/hot-paths.md "A large file's write in groups").
      .where('d.writing', '=', false)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      filePath: r.file_path,
      title: r.title,
      sha256: r.sha256,
      domain: r.domain,
      keywords: r.keywords as string[],
      metadata: r.metadata as Record<string, unknown>,
    }));
  }

  /**
   * The vectors of these documents' chunks in `space`, by their embedding input (title, section path and text): a re-upload
   * reuses the vector of every chunk whose text did not change (docs/documents.md "Re-upload"). Read `pageSize` chunks a
   * statement and parsed in time slices: a large manual's 8,371 vectors in one statement stalled the API's thread
   * 260–330 ms (docs/hot-paths.md "What the re-upload costs, measured"). The pages need no snapshot: a vector is a
   * function of its embedding input in one space, so a write between two pages cannot pair a text with another's vector.
   */
  async vectorsOf(
    tenantId: TenantId,
    documentIds: readonly string[],
    space: VectorSpace,
    pageSize = VECTOR_PAGE_CHUNKS,
  ): Promise<{ title: string; content: string; section: string[] | null; vector: number[] }[]> {
    const out: { title: string; content: string; section: string[] | null; vector: number[] }[] = [];
    if (!documentIds.length) return out;
    let after: ChunkPosition | null = null;
    for (;;) {
      const from: ChunkPosition | null = after;
      const rows = await this.database.db
        .selectFrom('knowledge_chunk as c')
        .innerJoin('knowledge_document as d', (j) => j.onRef('d.tenant_id', '=', 'c.tenant_id').onRef('d.id', '=', 'c.document_id'))
        .select(['c.document_id', 'c.chunk_index', 'd.title', 'c.content', 'c.section', sql<string>`c.embedding::text`.as('embedding')])
        .where('c.tenant_id', '=', tenantId)
        .where('c.document_id', 'in', documentIds)
        .where('c.embedding_model', '=', space.model)
        .$if(from !== null, (q) => q.where(sql<boolean>`(c.document_id, c.chunk_index) > (${from!.documentId}::uuid, ${from!.chunkIndex}::int)`))
        .orderBy('c.document_id')
        .orderBy('c.chunk_index')
        .limit(pageSize)
        .execute();
      out.push(
        ...(await mapSliced(rows, (r) => ({
          title: r.title,
          content: r.content,
          section: Array.isArray(r.section) ? (r.section as string[]) : null,
          vector: parseVector(r.embedding),
        }))),
      );
      const last: { document_id: string; chunk_index: number } | undefined = rows.at(-1);
      if (!last || rows.length < pageSize) return out;
      after = { documentId: last.document_id, chunkIndex: last.chunk_index };
    }
  }

  /** The file a document was made from, for download. */
  async fileOfDocument(
    tenantId: TenantId,
    documentId: string,
  ): Promise<{ exists: boolean; file: { fileName: string; mediaType: string; bytes: Buffer } | null }> {
    const row = await this.database.db
      .selectFrom('knowledge_document as d')
      .leftJoin('knowledge_file as f', (j) => j.onRef('f.tenant_id', '=', 'd.tenant_id').onRef('f.id', '=', 'd.file_id'))
      .select(['d.id', 'f.id as file_id', 'f.file_name', 'f.media_type', 'f.byte_size', 'f.bytes'])
      .where('d.tenant_id', '=', tenantId)
      .where('d.id', '=', documentId)
      .where('d.writing', '=', false)
      .executeTakeFirst();
    if (!row) return { exists: false, file: null };
    if (row.file_id === null || row.file_name === null || row.media_type === null || row.byte_size === null) return { exists: true, file: null };
    const bytes = await this.bytesOf(tenantId, row.file_id, Number(row.byte_size), row.bytes);
    return { exists: true, file: { fileName: row.file_name, mediaType: row.media_type, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) } };
  }
}
