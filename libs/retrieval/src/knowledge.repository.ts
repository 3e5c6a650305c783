import { Injectable } from '@nestjs/common';
import { exactTimestampSql, type KeysetRow, type Page, pageRequest, type TenantId, toPage } from '@arbiter/common';
import { Database, type RawBuilder, sql, type Tx } from '@arbiter/database';
import { chunkTextHash, keepsChunkRows, type RewrittenChunks, rewrittenChunkIndexes, rewrittenChunkPairs } from './chunk-rewrite.js';
import { INDEXED_CHUNKS } from './lexical.repository.js';
import type { MetadataFilter } from './metadata-filter.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { toVectorLiteral } from './vector-sql.js';

export interface DocumentRow {
  id: string;
  domain: string;
  filePath: string;
  title: string;
  content: string;
  keywords: string[];
  metadata: Record<string, unknown>;
  contentHash: string;
  chunkCount: number;
  version: number;
  /** The uploaded file the document was made from; null for documents posted as JSON. */
  fileId: string | null;
  mediaType: string | null;
  pageCount: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export type DocumentSummary = Omit<DocumentRow, 'content'> & { contentLength: number };

/** A document named by id, as other libs show it (e.g. the correct document of a bad-case review). */
export interface DocumentRef {
  id: string;
  title: string;
  filePath: string;
}

/** The uploaded file a document is made from (docs/documents.md "Storage"). */
export interface DocumentSource {
  fileId: string;
  mediaType: string;
  /** Pages of a PDF, else null. */
  pageCount: number | null;
}

export interface NewDocument {
  domain: string;
  filePath: string;
  title: string;
  content: string;
  keywords: string[];
  metadata: Record<string, unknown>;
  contentHash: string;
  /** Documents made from an uploaded file; absent for documents posted as JSON. */
  source?: DocumentSource;
}

/** Where a chunk of a document made from a file came from (docs/documents.md "Chunks"); absent for JSON documents. */
export interface ChunkLocation {
  /** 1-based first page (PDF). */
  page?: number;
  /** 1-based last page (PDF). */
  pageEnd?: number;
  /** The heading path of the chunk's section, outermost first. */
  section?: string[];
}

export interface NewChunk extends ChunkLocation {
  content: string;
  embedding: readonly number[];
  /** Kept disabled (a re-embed copies a disabled chunk as disabled, docs/documents.md "Chunks"). */
  disabled?: boolean;
}

export interface VectorSpace {
  model: string;
  dim: number;
}

/** Where a lookup searches: within one domain, among the documents a metadata filter selects (docs/retrieval.md "Metadata filters"). */
export interface SearchScope {
  domain?: string;
  filter?: MetadataFilter;
}

/** Where a found chunk came from: the file of a document made from one (null for JSON documents), its pages and section. */
export interface HitLocation {
  /** The uploaded file's name (`knowledge_file.file_name`) for documents made from files; null otherwise. */
  fileName: string | null;
  page: number | null;
  pageEnd: number | null;
  /** Heading path, outermost first; null without one. */
  section: string[] | null;
}

interface RawDocument {
  id: string;
  domain: string;
  file_path: string;
  title: string;
  content?: string;
  content_length?: number;
  keywords: string[];
  metadata: Record<string, unknown>;
  content_hash: string;
  chunk_count: number;
  version: number;
  file_id: string | null;
  media_type: string | null;
  page_count: number | null;
  created_at: Date;
  updated_at: Date;
}

const DOC_COLUMN_NAMES = [
  'id',
  'domain',
  'file_path',
  'title',
  'keywords',
  'metadata',
  'content_hash',
  'chunk_count',
  'version',
  'file_id',
  'media_type',
  'page_count',
  'created_at',
  'updated_at',
] as const;
const DOC_COLUMNS = sql.raw(DOC_COLUMN_NAMES.join(', '));

function toSummary(r: RawDocument): DocumentSummary {
  return {
    id: r.id,
    domain: r.domain,
    filePath: r.file_path,
    title: r.title,
    keywords: r.keywords,
    metadata: r.metadata,
    contentHash: r.content_hash,
    chunkCount: r.chunk_count,
    version: r.version,
    fileId: r.file_id,
    mediaType: r.media_type,
    pageCount: r.page_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    contentLength: Number(r.content_length ?? 0),
  };
}

/** A chunk's location columns as a hit carries them. */
export const toLocation = (r: { file_name: string | null; page: number | null; page_end: number | null; section: string[] | null }): HitLocation => ({
  fileName: r.file_name ?? null,
  page: r.page ?? null,
  pageEnd: r.page_end ?? null,
  section: r.section ?? null,
});

/**
 * Deletes those of these uploaded files no document uses any more (docs/documents.md "Storage"): the rows of
 * an FAQ sheet share its file, which goes with the last of them.
 */
async function deleteUnreferencedFiles(tx: Tx, tenantId: TenantId, fileIds: readonly string[]): Promise<void> {
  await sql`DELETE FROM knowledge_file f WHERE f.tenant_id = ${tenantId} AND f.id = ANY(${fileIds}::uuid[])
        AND NOT EXISTS (SELECT 1 FROM knowledge_document d WHERE d.tenant_id = f.tenant_id AND d.file_id = f.id)`.execute(tx);
}

/** Items in file-path order, the order every write locks documents in (no deadlock between two writes of the same paths). */
const sortedByPath = <T extends { doc: NewDocument }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.doc.filePath < b.doc.filePath ? -1 : a.doc.filePath > b.doc.filePath ? 1 : 0));

/**
 * The column list and rows of an insert of new documents into `knowledge_document`, in the order given (callers sort
 * by file path: rows are locked in that order): one `unnest` of their columns, `writing` for all of them.
 */
function documentRows(tenantId: TenantId, items: readonly { doc: NewDocument; chunkCount: number }[], writing: boolean): RawBuilder<unknown> {
  const docs = items.map((i) => i.doc);
  return sql`(tenant_id, domain, file_path, title, content, keywords, metadata, content_hash, chunk_count, file_id, media_type, page_count, writing)
         SELECT ${tenantId}::uuid, n.domain, n.file_path, n.title, n.content, n.keywords, n.metadata, n.content_hash, n.chunk_count, n.file_id, n.media_type,
                n.page_count, ${writing}
           FROM unnest(${docs.map((d) => d.domain)}::text[], ${docs.map((d) => d.filePath)}::text[], ${docs.map((d) => d.title)}::text[],
                       ${docs.map((d) => d.content)}::text[], ${docs.map((d) => JSON.stringify(d.keywords))}::jsonb[],
                       ${docs.map((d) => JSON.stringify(d.metadata))}::jsonb[], ${docs.map((d) => d.contentHash)}::text[],
                       ${items.map((i) => i.chunkCount)}::int[], ${docs.map((d) => d.source?.fileId ?? null)}::uuid[],
                       ${docs.map((d) => d.source?.mediaType ?? null)}::text[], ${docs.map((d) => d.source?.pageCount ?? null)}::int[])
                AS n(domain, file_path, title, content, keywords, metadata, content_hash, chunk_count, file_id, media_type, page_count)`;
}

/**
 * Locks documents being written in groups, in file-path order (the order `replaceMany` locks in); DOCUMENT_WRITE_SUPERSEDED
 * when one of them is not being written (any more).
 */
async function lockWriting(tx: Tx, tenantId: TenantId, documentIds: readonly string[]): Promise<void> {
  const ids = [...new Set(documentIds)];
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM knowledge_document WHERE tenant_id = ${tenantId} AND id = ANY(${ids}::uuid[]) AND writing ORDER BY file_path FOR UPDATE`.execute(tx);
  if (rows.length !== ids.length) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_WRITE_SUPERSEDED);
  // A write still going on: the sweep of abandoned hidden documents leaves it alone (ABANDONED_HIDDEN_MS).
  await sql`UPDATE knowledge_document SET updated_at = now() WHERE tenant_id = ${tenantId} AND id = ANY(${ids}::uuid[])`.execute(tx);
}

/**
 * What changes with every write of a document's postings (a re-post: `version`, `updated_at`; a re-index:
 * `lexical_version`; a chunk edit: `updated_at`): equal stamps before and under a lock mean its postings did not change
 * between (docs/hot-paths.md "A large document's removal in groups").
 */
const DOCUMENT_STAMP = sql<string>`concat_ws('/', version, updated_at, lexical_version, lexical_length)`;

/** A hidden document (`writing`) untouched this long belongs to a write or a removal that died (docs/hot-paths.md). */
export const ABANDONED_HIDDEN_MS = 60 * 60 * 1000;

/** A hidden document to remove: its id and the chunk indices its chunks and postings may have, `[0, chunkCount)`. */
export interface HiddenDocument {
  id: string;
  chunkCount: number;
}

const toHidden = (r: { id: string; chunk_count: number | string }): HiddenDocument => ({ id: r.id, chunkCount: Number(r.chunk_count) });

/** A replaced document's row as {@link KnowledgeRepository.replaceMany} locks it. */
interface StoredRow {
  id: string;
  file_id: string | null;
  writing: boolean;
  indexed_chunks: number;
  chunk_count: number;
  lexical_version: number;
  title: string;
  keywords: string[];
  domain: string;
}

/** Chunk rows compared or deleted a statement: their keys (and the new chunks' hashes, pages and sections) are parameters. */
const CHUNK_ROWS_PER_STATEMENT = 1_000;

/**
 * The chunk rows of replaced documents that stay as they are (docs/hot-paths.md "A re-post keeps its unchanged
 * chunks"): in the write's vector space, at the same index, with the same text (its MD5), pages, section and disabled
 * flag, of a document whose heading, domain and postings still hold (`keepsChunkRows`). Returns, for each document
 * that keeps any, the indices written again; documents that keep none are left out (written whole).
 */
async function keptChunkRows(
  tx: Tx,
  tenantId: TenantId,
  items: readonly { doc: NewDocument; chunks: readonly NewChunk[] }[],
  ids: ReadonlyMap<string, string>,
  old: readonly StoredRow[],
  space: VectorSpace,
  lexicalVersion: number,
): Promise<Map<string, ReadonlySet<number>>> {
  const stored = new Map(old.map((o) => [o.id, o]));
  const out = new Map<string, ReadonlySet<number>>();
  for (const { doc, chunks } of items) {
    const documentId = ids.get(doc.filePath) as string;
    const before = stored.get(documentId);
    if (!before || !keepsChunkRows({ ...before, lexicalVersion: Number(before.lexical_version) }, doc, lexicalVersion)) continue;
    const kept = new Set<number>();
    for (let first = 0; first < chunks.length; first += CHUNK_ROWS_PER_STATEMENT) {
      const batch = chunks.slice(first, first + CHUNK_ROWS_PER_STATEMENT);
      const { rows } = await sql<{ idx: number }>`
        SELECT n.idx FROM unnest(${batch.map((_, k) => first + k)}::int[], ${batch.map((c) => chunkTextHash(c.content))}::text[],
                                 ${batch.map((c) => c.page ?? null)}::int[], ${batch.map((c) => c.pageEnd ?? c.page ?? null)}::int[],
                                 ${batch.map((c) => (c.section ? JSON.stringify(c.section) : null))}::jsonb[], ${batch.map((c) => c.disabled === true)}::boolean[])
                          AS n(idx, hash, page, page_end, section, disabled)
          JOIN knowledge_chunk c ON c.tenant_id = ${tenantId} AND c.document_id = ${documentId} AND c.embedding_model = ${space.model} AND c.chunk_index = n.idx
         WHERE c.embedding_dim = ${space.dim} AND md5(c.content) = n.hash AND c.page IS NOT DISTINCT FROM n.page AND c.page_end IS NOT DISTINCT FROM n.page_end
           AND c.section IS NOT DISTINCT FROM n.section AND (c.disabled_at IS NOT NULL) = n.disabled`.execute(tx);
      for (const r of rows) kept.add(Number(r.idx));
    }
    if (kept.size) out.set(documentId, new Set(rewrittenChunkIndexes(kept, chunks.length, Number(before.chunk_count))));
  }
  return out;
}

/** Deletes the rewritten chunk rows of {@link keptChunkRows}' documents, and every row of theirs in another vector space. */
async function deleteChunkRows(tx: Tx, tenantId: TenantId, rewritten: RewrittenChunks, space: VectorSpace): Promise<void> {
  const documents = [...rewritten.keys()];
  await sql`DELETE FROM knowledge_chunk WHERE tenant_id = ${tenantId} AND document_id = ANY(${documents}::uuid[]) AND embedding_model <> ${space.model}`.execute(
    tx,
  );
  const pairs = rewrittenChunkPairs(rewritten);
  for (let i = 0; i < pairs.length; i += CHUNK_ROWS_PER_STATEMENT) {
    const batch = pairs.slice(i, i + CHUNK_ROWS_PER_STATEMENT);
    await sql`DELETE FROM knowledge_chunk c USING unnest(${batch.map((p) => p.documentId)}::uuid[], ${batch.map((p) => p.index)}::int[]) AS u(doc, idx)
               WHERE c.tenant_id = ${tenantId} AND c.document_id = u.doc AND c.embedding_model = ${space.model} AND c.chunk_index = u.idx`.execute(tx);
  }
}

/**
 * The knowledge base's documents and chunks (the vector search over them is {@link VectorSearchRepository}'s). Every
 * method is scoped by the tenant id it takes first. On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class KnowledgeRepository {
  constructor(private readonly database: Database) {}

  async findByPath(tenantId: TenantId, filePath: string): Promise<DocumentSummary | null> {
    const { rows } = await sql<RawDocument>`
      SELECT ${DOC_COLUMNS}, length(content) AS content_length FROM knowledge_document WHERE tenant_id = ${tenantId} AND file_path = ${filePath} AND NOT writing`.execute(
      this.database.db,
    );
    return rows[0] ? toSummary(rows[0]) : null;
  }

  /** Id, title and file path of those of these documents the tenant holds (others are left out). */
  async documentRefs(tenantId: TenantId, ids: readonly string[]): Promise<DocumentRef[]> {
    if (!ids.length) return [];
    const { rows } = await sql<{ id: string; title: string; file_path: string }>`
      SELECT id, title, file_path FROM knowledge_document WHERE tenant_id = ${tenantId} AND id = ANY(${ids}::uuid[]) AND NOT writing`.execute(this.database.db);
    return rows.map((r) => ({ id: r.id, title: r.title, filePath: r.file_path }));
  }

  /**
   * Which of these file paths the tenant's knowledge base holds, each with `located`: a document made from a file whose
   * chunks carry a section or a page — each of its sections is a candidate of its own (docs/retrieval.md "Sections of
   * files"), so a label must say where in it the answer is.
   */
  async labelTargets(tenantId: TenantId, filePaths: readonly string[]): Promise<{ filePath: string; located: boolean }[]> {
    if (!filePaths.length) return [];
    const { rows } = await sql<{ file_path: string; located: boolean }>`
      SELECT d.file_path,
             d.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM knowledge_chunk c
                                                WHERE c.tenant_id = ${tenantId} AND c.document_id = d.id AND (c.section IS NOT NULL OR c.page IS NOT NULL)) AS located
        FROM knowledge_document d
       WHERE d.tenant_id = ${tenantId} AND d.file_path = ANY(${filePaths}::text[]) AND NOT d.writing`.execute(this.database.db);
    return rows.map((r) => ({ filePath: r.file_path, located: r.located === true }));
  }

  async get(tenantId: TenantId, id: string): Promise<(DocumentSummary & { content: string }) | null> {
    const { rows } = await sql<RawDocument>`
      SELECT ${DOC_COLUMNS}, content, length(content) AS content_length FROM knowledge_document WHERE tenant_id = ${tenantId} AND id = ${id} AND NOT writing`.execute(
      this.database.db,
    );
    return rows[0] ? { ...toSummary(rows[0]), content: rows[0].content ?? '' } : null;
  }

  /**
   * Of these documents, the ones stored with the same content hash, domain, title, keywords and
   * metadata and with chunks in `space` (re-posting them is a no-op), by file path. `file_path = ANY(…)` makes
   * it a lookup of the unique index: the embedded database keeps no planner statistics (no autovacuum), and
   * the join alone was planned as a scan of every document of the tenant (docs/hot-paths.md "Imports").
   */
  async unchanged(tenantId: TenantId, docs: readonly NewDocument[], space: VectorSpace): Promise<Map<string, DocumentSummary>> {
    if (!docs.length) return new Map();
    const paths = docs.map((d) => d.filePath);
    const { rows } = await sql<RawDocument>`
      SELECT ${sql.raw(DOC_COLUMN_NAMES.map((c) => `d.${c}`).join(', '))}, length(d.content) AS content_length
         FROM unnest(${paths}::text[], ${docs.map((d) => d.contentHash)}::text[], ${docs.map((d) => d.domain)}::text[], ${docs.map((d) => d.title)}::text[],
                     ${docs.map((d) => JSON.stringify(d.keywords))}::jsonb[], ${docs.map((d) => JSON.stringify(d.metadata))}::jsonb[])
              AS n(file_path, content_hash, domain, title, keywords, metadata)
         JOIN knowledge_document d ON d.tenant_id = ${tenantId} AND d.file_path = ANY(${paths}::text[]) AND d.file_path = n.file_path AND d.content_hash = n.content_hash AND d.domain = n.domain
                                  AND d.title = n.title AND d.keywords = n.keywords AND d.metadata = n.metadata AND NOT d.writing
        WHERE d.chunk_count = 0 OR EXISTS (SELECT 1 FROM knowledge_chunk c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id AND c.embedding_model = ${space.model})`.execute(
      this.database.db,
    );
    return new Map(rows.map((r) => [r.file_path, toSummary(r)]));
  }

  /**
   * Upserts documents by filePath and replaces their chunks in one transaction (multi-row
   * statements, rows locked in file-path order): a concurrent lookup (one statement, one snapshot)
   * sees each document wholly old or wholly new. A replaced document's unchanged chunk rows stay and only
   * the others are written ({@link keptChunkRows}: `lexicalVersion`, the analyzer version the postings are
   * written at, must be the stored postings'); `indexLexically` gets the indices written again. `indexLexically` writes the lexical postings in the
   * same transaction, given each file path's document id and, by document id, the chunks its postings counted
   * before this write (read before the upsert moves `chunk_count`); `record` (the audit entry of an operator's
   * write, docs/http-edge.md "Audit log") runs last in it, given what was written.
   */
  async replaceMany(
    tenantId: TenantId,
    items: readonly { doc: NewDocument; chunks: readonly NewChunk[] }[],
    space: VectorSpace,
    lexicalVersion: number,
    indexLexically: (tx: Tx, ids: ReadonlyMap<string, string>, indexedChunks: ReadonlyMap<string, number>, rewritten: RewrittenChunks) => Promise<void>,
    record?: (tx: Tx, written: readonly { document: DocumentSummary; created: boolean }[]) => Promise<void>,
  ): Promise<{ document: DocumentSummary; created: boolean }[]> {
    const sorted = sortedByPath(items);
    const paths = sorted.map((i) => i.doc.filePath);
    return this.database.transaction(async (tx) => {
      // The documents being replaced, locked in file-path order, and their files: a file no document uses any more is deleted below.
      // A statement of its own, not a CTE read in RETURNING: Citus evaluates RETURNING on the shard, where the CTE does not exist (docs/SCALING.md "Running on Citus").
      const { rows: old } = await sql<StoredRow>`
        SELECT id, file_id, writing, ${INDEXED_CHUNKS} AS indexed_chunks, chunk_count, lexical_version, title, keywords, domain
          FROM knowledge_document WHERE tenant_id = ${tenantId} AND file_path = ANY(${paths}::text[]) ORDER BY file_path FOR UPDATE`.execute(tx);
      const oldFiles = new Map(old.map((o) => [o.id, o.file_id]));
      const { rows } = await sql<RawDocument & { inserted: boolean }>`
        INSERT INTO knowledge_document ${documentRows(
          tenantId,
          sorted.map((i) => ({ doc: i.doc, chunkCount: i.chunks.length })),
          false,
        )}
         ON CONFLICT ON CONSTRAINT uq_knowledge_document_path DO UPDATE SET
           domain = EXCLUDED.domain, title = EXCLUDED.title, content = EXCLUDED.content, keywords = EXCLUDED.keywords,
           metadata = EXCLUDED.metadata, content_hash = EXCLUDED.content_hash, chunk_count = EXCLUDED.chunk_count,
           file_id = EXCLUDED.file_id, media_type = EXCLUDED.media_type, page_count = EXCLUDED.page_count,
           -- A document still being written in groups is taken over: it was never shown, so this write creates it.
           version = CASE WHEN knowledge_document.writing THEN 1 ELSE knowledge_document.version + 1 END, writing = false, updated_at = EXCLUDED.updated_at
         RETURNING ${DOC_COLUMNS}, length(content) AS content_length, (xmax = 0) AS inserted`.execute(tx);
      const replacedFiles = rows.flatMap((r) => {
        const replaced = oldFiles.get(r.id);
        return replaced && replaced !== r.file_id ? [replaced] : [];
      });
      if (replacedFiles.length) await deleteUnreferencedFiles(tx, tenantId, replacedFiles);
      const ids = new Map(rows.map((r) => [r.file_path, r.id]));
      const rewritten = await keptChunkRows(tx, tenantId, sorted, ids, old, space, lexicalVersion);
      const whole = rows.map((r) => r.id).filter((id) => !rewritten.has(id));
      if (whole.length) await sql`DELETE FROM knowledge_chunk WHERE tenant_id = ${tenantId} AND document_id = ANY(${whole}::uuid[])`.execute(tx);
      if (rewritten.size) await deleteChunkRows(tx, tenantId, rewritten, space);
      await this.insertChunksOf(
        tx,
        tenantId,
        sorted.map((i) => {
          const documentId = ids.get(i.doc.filePath) as string;
          return { documentId, domain: i.doc.domain, chunks: i.chunks, only: rewritten.get(documentId) };
        }),
        space,
      );
      await indexLexically(tx, ids, new Map(old.map((o) => [o.id, Number(o.indexed_chunks)])), rewritten);
      const takenOver = new Set(old.filter((o) => o.writing).map((o) => o.id));
      const byPath = new Map(rows.map((r) => [r.file_path, { document: toSummary(r), created: r.inserted || takenOver.has(r.id) }]));
      const written = items.map((i) => byPath.get(i.doc.filePath) as { document: DocumentSummary; created: boolean });
      if (record) await record(tx, written);
      return written;
    });
  }

  /**
   * Starts a write in groups (docs/hot-paths.md "A large file's write in groups"): the documents' rows, hidden
   * (`writing`) and not yet indexed, by file path. A path at which the tenant already has a document is left out of
   * the answer (the caller replaces that one in one transaction instead, or supersedes it when it is itself being written).
   */
  async createWriting(tenantId: TenantId, items: readonly { doc: NewDocument; chunkCount: number }[]): Promise<Map<string, string>> {
    if (!items.length) return new Map();
    const sorted = sortedByPath(items);
    const { rows } = await sql<{ id: string; file_path: string }>`
      INSERT INTO knowledge_document ${documentRows(tenantId, sorted, true)}
      ON CONFLICT ON CONSTRAINT uq_knowledge_document_path DO NOTHING
      RETURNING id, file_path`.execute(this.database.db);
    return new Map(rows.map((r) => [r.file_path, r.id]));
  }

  /** The documents at these paths that are being written (earlier writes that did not finish). */
  async findWriting(tenantId: TenantId, filePaths: readonly string[]): Promise<HiddenDocument[]> {
    if (!filePaths.length) return [];
    return (await this.hiddenRows(tenantId).where('file_path', 'in', filePaths).execute()).map(toHidden);
  }

  /**
   * One group of a write in groups, one transaction: each segment's chunks (from its `firstIndex`), then
   * `indexLexically` (their postings) on the same transaction. Throws DOCUMENT_WRITE_SUPERSEDED when a document is no
   * longer being written (another write of its path took it over or removed it): nothing of the group is kept.
   */
  async appendChunks(
    tenantId: TenantId,
    segments: readonly { documentId: string; domain: string; chunks: readonly NewChunk[]; firstIndex: number }[],
    space: VectorSpace,
    indexLexically: (tx: Tx) => Promise<void>,
  ): Promise<void> {
    await this.database.transaction(async (tx) => {
      await lockWriting(
        tx,
        tenantId,
        segments.map((s) => s.documentId),
      );
      await this.insertChunksOf(tx, tenantId, segments, space);
      await indexLexically(tx);
    });
  }

  /**
   * The end of a write in groups, one short transaction: `indexLexically` (the statistics) and the documents shown.
   * Answers their summaries in the order of `documentIds`. Throws DOCUMENT_WRITE_SUPERSEDED as {@link appendChunks}.
   */
  async publishWriting(tenantId: TenantId, documentIds: readonly string[], indexLexically: (tx: Tx) => Promise<void>): Promise<DocumentSummary[]> {
    return this.database.transaction(async (tx) => {
      await lockWriting(tx, tenantId, documentIds);
      await indexLexically(tx);
      const { rows } = await sql<RawDocument>`
        UPDATE knowledge_document SET writing = false, updated_at = now() WHERE tenant_id = ${tenantId} AND id = ANY(${documentIds}::uuid[])
        RETURNING ${DOC_COLUMNS}, length(content) AS content_length`.execute(tx);
      const byId = new Map(rows.map((r) => [r.id, toSummary(r)]));
      return documentIds.map((id) => byId.get(id) as DocumentSummary);
    });
  }

  /**
   * Deletes the chunks `[fromChunk, toChunk)` of a hidden document (being written or removed), one statement on its
   * own: a large document's removal holds the database for a group of chunks at a time.
   */
  async deleteHiddenChunks(tenantId: TenantId, documentId: string, fromChunk: number, toChunk: number): Promise<void> {
    await sql`DELETE FROM knowledge_chunk c WHERE c.tenant_id = ${tenantId} AND c.document_id = ${documentId}
                AND c.chunk_index >= ${fromChunk} AND c.chunk_index < ${toChunk}
                AND EXISTS (SELECT 1 FROM knowledge_document d WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId} AND d.writing)`.execute(
      this.database.db,
    );
  }

  /** A shown document's chunk count and {@link DOCUMENT_STAMP}, or null. */
  async findShownChunkCount(tenantId: TenantId, id: string): Promise<{ chunkCount: number; stamp: string } | null> {
    const row = await this.database.db
      .selectFrom('knowledge_document')
      .select(['chunk_count', DOCUMENT_STAMP.as('stamp')])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('writing', '=', false)
      .executeTakeFirst();
    return row ? { chunkCount: Number(row.chunk_count), stamp: row.stamp } : null;
  }

  /** A hidden document by id (a removal that did not finish), or null. */
  async findHidden(tenantId: TenantId, id: string): Promise<HiddenDocument | null> {
    const row = await this.hiddenRows(tenantId).where('id', '=', id).executeTakeFirst();
    return row ? toHidden(row) : null;
  }

  /** The tenant's hidden documents untouched for {@link ABANDONED_HIDDEN_MS} (a write or a removal that died). */
  async abandonedHidden(tenantId: TenantId): Promise<HiddenDocument[]> {
    const rows = await this.hiddenRows(tenantId)
      .where('updated_at', '<', sql<Date>`now() - make_interval(secs => ${ABANDONED_HIDDEN_MS / 1000})`)
      .execute();
    return rows.map(toHidden);
  }

  /** The tenant's hidden documents (`writing`: being written in groups, or removed), as {@link toHidden} reads them. */
  private hiddenRows(tenantId: TenantId) {
    return this.database.db.selectFrom('knowledge_document').select(['id', 'chunk_count']).where('tenant_id', '=', tenantId).where('writing', '=', true);
  }

  /**
   * The first step of a document's removal, one short transaction (docs/hot-paths.md "A large document's removal in
   * groups"): the shown document locked, `uncount` (its postings out of the statistics), `record`, its uploaded file
   * deleted when no other document uses it, and the row hidden (`writing`): from its commit no lookup or endpoint sees
   * the document, and its chunks and postings are deleted in groups after it. Null when the tenant has no such shown
   * document.
   */
  async retire(
    tenantId: TenantId,
    id: string,
    stamp: string | null,
    uncount: (tx: Tx, unchanged: boolean) => Promise<void>,
    record: (tx: Tx, retired: { title: string; filePath: string; domain: string; chunkCount: number }) => Promise<void>,
  ): Promise<HiddenDocument | null> {
    return this.database.transaction(async (tx) => {
      const locked = await tx
        .selectFrom('knowledge_document')
        .select(['file_id', 'title', 'file_path', 'domain', 'chunk_count', DOCUMENT_STAMP.as('stamp')])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('writing', '=', false)
        .forUpdate()
        .executeTakeFirst();
      if (!locked) return null;
      const chunkCount = Number(locked.chunk_count);
      await uncount(tx, stamp !== null && locked.stamp === stamp);
      await record(tx, { title: locked.title, filePath: locked.file_path, domain: locked.domain, chunkCount });
      await tx
        .updateTable('knowledge_document')
        .set({ writing: true, file_id: null, updated_at: sql`now()` })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute();
      // The document's uploaded file goes with it (docs/documents.md "Storage").
      if (locked.file_id) await deleteUnreferencedFiles(tx, tenantId, [locked.file_id]);
      return { id, chunkCount };
    });
  }

  /** Deletes a hidden document (being written or removed), with what is left of its chunks and postings (nothing when it is shown). */
  async deleteWriting(tenantId: TenantId, documentId: string): Promise<void> {
    await this.database.db
      .deleteFrom('knowledge_document')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', documentId)
      .where('writing', '=', true)
      .execute();
  }

  private async insertChunksOf(
    tx: Tx,
    tenantId: TenantId,
    docs: readonly { documentId: string; domain: string; chunks: readonly NewChunk[]; firstIndex?: number; only?: ReadonlySet<number> }[],
    space: VectorSpace,
  ): Promise<void> {
    // `only`: the chunk indices to insert, when a replace keeps the other rows (keptChunkRows).
    // Bounded statements: the driver serialises each (vectors as text) on the API's thread.
    const BATCH = 100;
    const flat = docs.flatMap((d) =>
      d.chunks.map((c, k) => ({ documentId: d.documentId, domain: d.domain, index: (d.firstIndex ?? 0) + k, c })).filter((e) => !d.only || d.only.has(e.index)),
    );
    for (let i = 0; i < flat.length; i += BATCH) {
      const batch = flat.slice(i, i + BATCH);
      await sql`INSERT INTO knowledge_chunk (tenant_id, document_id, domain, chunk_index, content, embedding, embedding_model, embedding_dim, page, page_end, section, disabled_at)
         SELECT ${tenantId}::uuid, t.doc, t.domain, t.idx, t.content, t.emb::vector, ${space.model}, ${space.dim}::int, t.page, t.page_end, t.section, CASE WHEN t.disabled THEN now() END
           FROM unnest(${batch.map((b) => b.documentId)}::uuid[], ${batch.map((b) => b.domain)}::text[], ${batch.map((b) => b.index)}::int[],
                       ${batch.map((b) => b.c.content)}::text[], ${batch.map((b) => toVectorLiteral(b.c.embedding))}::text[],
                       ${batch.map((b) => b.c.page ?? null)}::int[], ${batch.map((b) => b.c.pageEnd ?? b.c.page ?? null)}::int[],
                       ${batch.map((b) => (b.c.section ? JSON.stringify(b.c.section) : null))}::jsonb[], ${batch.map((b) => b.c.disabled === true)}::boolean[])
                AS t(doc, domain, idx, content, emb, page, page_end, section, disabled)`.execute(tx);
    }
  }

  /** Adds chunks of another vector space to an existing document (re-embedding), replacing that space's chunks. */
  async replaceChunksInSpace(tenantId: TenantId, documentId: string, domain: string, chunks: readonly NewChunk[], space: VectorSpace): Promise<void> {
    await this.database.transaction(async (tx) => {
      await tx
        .deleteFrom('knowledge_chunk')
        .where('tenant_id', '=', tenantId)
        .where('document_id', '=', documentId)
        .where('embedding_model', '=', space.model)
        .execute();
      await this.insertChunksOf(tx, tenantId, [{ documentId, domain, chunks }], space);
    });
  }

  /** Documents that have chunks but none in `space`, oldest first (re-embed job). */
  async documentsMissingSpace(
    tenantId: TenantId,
    space: VectorSpace,
    afterId: string | null,
    limit: number,
  ): Promise<{ id: string; domain: string; title: string; content: string }[]> {
    const { rows } = await sql<{ id: string; domain: string; title: string; content: string }>`
      SELECT d.id, d.domain, d.title, d.content FROM knowledge_document d
        WHERE d.tenant_id = ${tenantId} AND d.chunk_count > 0 AND NOT d.writing AND (${afterId}::uuid IS NULL OR d.id > ${afterId}::uuid)
          AND NOT EXISTS (SELECT 1 FROM knowledge_chunk c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id AND c.embedding_model = ${space.model})
        ORDER BY d.id LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }

  /** How many documents `documentsMissingSpace` would still return after `afterId` (the re-embed job's progress total). */
  async countDocumentsMissingSpace(tenantId: TenantId, space: VectorSpace, afterId: string | null): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM knowledge_document d
        WHERE d.tenant_id = ${tenantId} AND d.chunk_count > 0 AND NOT d.writing AND (${afterId}::uuid IS NULL OR d.id > ${afterId}::uuid)
          AND NOT EXISTS (SELECT 1 FROM knowledge_chunk c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id AND c.embedding_model = ${space.model})`.execute(
      this.database.db,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Drops chunks of other vector spaces once every document has chunks in `space`. */
  async dropOtherSpaces(tenantId: TenantId, space: VectorSpace): Promise<number> {
    const result = await this.database.db
      .deleteFrom('knowledge_chunk')
      .where('tenant_id', '=', tenantId)
      .where('embedding_model', '<>', space.model)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** A page of the tenant's documents, newest first (keyset over created_at, id). */
  async list(tenantId: TenantId, options: { domain?: string; cursor?: string; limit?: number }): Promise<Page<DocumentSummary>> {
    const page = pageRequest(options);
    const { rows } = await sql<RawDocument & KeysetRow>`
      SELECT ${DOC_COLUMNS}, length(content) AS content_length, ${sql.raw(exactTimestampSql('created_at'))} AS "cursorTs", id::text AS "cursorId"
        FROM knowledge_document
       WHERE tenant_id = ${tenantId} AND NOT writing${options.domain ? sql` AND domain = ${options.domain}` : sql``}
         AND ${page.after ? sql`(created_at, id) < (${page.after.createdAt}::timestamptz, ${page.after.id}::uuid)` : sql`TRUE`}
       ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1}`.execute(this.database.db);
    return toPage(rows, page.limit, toSummary);
  }
}
