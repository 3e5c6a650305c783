import { Injectable } from '@nestjs/common';
import { type TenantId, TimeSlice } from '@arbiter/common';
import { Database, type Db, sql, type Tx } from '@arbiter/database';
import { type RewrittenChunks, rewrittenChunkPairs } from './chunk-rewrite.js';
import type { SearchScope, VectorSpace } from './knowledge.repository.js';
import { type LexicalSearchResult, type LexicalSearchRow, lexicalSearchSql, parseLexicalSearchRow } from './lexical-search-sql.js';

/** The chunks a `knowledge_document` row's postings count in the tenant's statistics (none before it is indexed). */
export const INDEXED_CHUNKS = sql<number>`CASE WHEN lexical_version > 0 THEN chunk_count ELSE 0 END`;

/** Postings of one chunk: distinct terms with their BM25 impacts, and its length in terms. */
export interface ChunkTerms {
  chunkIndex: number;
  terms: readonly string[];
  impacts: readonly number[];
  length: number;
}

export interface LexicalStats {
  chunkCount: number;
  averageLength: number;
}

export type { LexicalHit, LexicalSearchResult } from './lexical-search-sql.js';

/** Postings as the column arrays of knowledge_term's insert. */
interface PostingRows {
  terms: string[];
  impacts: number[];
  indexes: number[];
  owners: string[];
  domains: string[];
}

/** A chunk's terms are distinct: per term, how many of these chunks hold it (what it adds to the document frequency). */
async function countTerms(chunks: readonly ChunkTerms[]): Promise<Map<string, number>> {
  const added = new Map<string, number>();
  const slice = new TimeSlice();
  for (const c of chunks) {
    for (const t of c.terms) added.set(t, (added.get(t) ?? 0) + 1);
    await slice.pause();
  }
  return added;
}

async function postingRows(docs: readonly { documentId: string; domain: string; chunks: readonly ChunkTerms[] }[]): Promise<PostingRows> {
  const rows: PostingRows = { terms: [], impacts: [], indexes: [], owners: [], domains: [] };
  // In slices: a file's thousands of chunks hold a million postings, ~0.6 s of this loop in one go
  // (docs/hot-paths.md "A large upload and the event loop").
  const slice = new TimeSlice();
  for (const d of docs) {
    for (const c of d.chunks) {
      c.terms.forEach((t, k) => {
        rows.terms.push(t);
        rows.impacts.push(c.impacts[k]);
        rows.indexes.push(c.chunkIndex);
        rows.owners.push(d.documentId);
        rows.domains.push(d.domain);
      });
      await slice.pause();
    }
  }
  return rows;
}

async function insertPostingRows(tx: Tx, tenantId: TenantId, rows: PostingRows): Promise<void> {
  // Statements of bounded size: the driver serialises each on the API's thread (README, Faults and outages).
  const BATCH = 5_000;
  for (let i = 0; i < rows.terms.length; i += BATCH) {
    await sql`INSERT INTO knowledge_term (tenant_id, term, impact, document_id, chunk_index, domain)
       SELECT ${tenantId}::uuid, t.term, t.impact, t.doc, t.idx, t.domain
         FROM unnest(${rows.terms.slice(i, i + BATCH)}::text[], ${rows.impacts.slice(i, i + BATCH)}::real[], ${rows.owners.slice(i, i + BATCH)}::uuid[],
                     ${rows.indexes.slice(i, i + BATCH)}::int[], ${rows.domains.slice(i, i + BATCH)}::text[]) AS t(term, impact, doc, idx, domain)`.execute(tx);
  }
}

/**
 * The BM25 lexical index (migrations/0070_retrieval_lexical.sql): postings with their impacts,
 * document frequencies and length statistics per tenant. Writes run inside the caller's transaction
 * (the document upsert), so the index always matches the stored documents. On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class LexicalRepository {
  constructor(private readonly database: Database) {}

  async stats(tenantId: TenantId, db: Db = this.database.db): Promise<LexicalStats> {
    const row = await db.selectFrom('knowledge_lexical_stats').select(['chunk_count', 'total_length']).where('tenant_id', '=', tenantId).executeTakeFirst();
    const n = Number(row?.chunk_count ?? 0);
    return { chunkCount: n, averageLength: n > 0 && row ? Number(row.total_length) / n : 0 };
  }

  /**
   * Replaces the postings of documents (old ones out, new ones in) and adjusts document frequencies
   * and length statistics, in the caller's transaction; documents not shown (hidden, or gone) are left alone. The tenant's statistics row is locked first,
   * then document frequencies in term order, so concurrent imports of one tenant cannot deadlock.
   * `indexedChunks` (by document id): the chunks each document's postings counted before this write, when the
   * caller has already stored the documents' new `chunk_count` (a re-post with another number of chunks).
   */
  async replaceDocuments(
    tx: Tx,
    tenantId: TenantId,
    requested: readonly { documentId: string; domain: string; chunks: readonly ChunkTerms[] }[],
    lexicalVersion: number,
    indexedChunks?: ReadonlyMap<string, number>,
    rewritten: RewrittenChunks = new Map(),
  ): Promise<void> {
    // Shown documents only, locked (file-path order, as every write): a re-index that read a document before its removal
    // began leaves it alone (docs/hot-paths.md "A large document's removal in groups").
    const { rows: previous } = await sql<{ id: string; lexical_length: number; chunks: number; indexed: boolean }>`
      SELECT id, lexical_length, ${INDEXED_CHUNKS} AS chunks, lexical_version > 0 AS indexed
        FROM knowledge_document WHERE tenant_id = ${tenantId} AND id = ANY(${requested.map((d) => d.documentId)}::uuid[]) AND NOT writing
       ORDER BY file_path FOR UPDATE`.execute(tx);
    const shown = new Set(previous.map((r) => r.id));
    const docs = requested.filter((d) => shown.has(d.documentId));
    if (!docs.length) return;
    const ids = docs.map((d) => d.documentId);
    const oldLength = previous.reduce((s, r) => s + Number(r.lexical_length), 0);
    // A write that has already stored the documents' new `chunk_count` says what their postings counted before it.
    const oldChunks = previous.reduce((s, r) => s + (indexedChunks?.get(r.id) ?? Number(r.chunks)), 0);
    const lengths = docs.map((d) => d.chunks.reduce((s, c) => s + c.length, 0));
    const newChunks = docs.reduce((s, d) => s + d.chunks.length, 0);
    await this.adjustStats(tx, tenantId, newChunks - oldChunks, lengths.reduce((a, b) => a + b, 0) - oldLength);
    // A document whose unchanged chunks keep their rows (docs/hot-paths.md "A re-post keeps its unchanged chunks")
    // has only its rewritten chunks' postings deleted and written.
    const written = docs.map((d) => {
      const only = rewritten.get(d.documentId);
      return only ? { ...d, chunks: d.chunks.filter((c) => only.has(c.chunkIndex)) } : d;
    });
    const rows = await postingRows(written);
    // Pre-counted per term: one array element per distinct term, not per posting, keeps the frequencies' statement small.
    const added = await countTerms(written.flatMap((d) => d.chunks));
    // Only the postings of an indexed document count in the frequencies: a document still being written in groups
    // has postings that do not (docs/hot-paths.md "A large file's write in groups").
    const counted = previous.filter((r) => r.indexed).map((r) => r.id);
    const whole = ids.filter((id) => !rewritten.has(id));
    const pairs = rewrittenChunkPairs(rewritten);
    // The rewritten chunks' postings found by (tenant, document, chunk) pairs: the index idx_knowledge_term_document_chunk.
    const partly = pairs.length
      ? sql`,
            part AS (DELETE FROM knowledge_term k USING unnest(${pairs.map((p) => p.documentId)}::uuid[], ${pairs.map((p) => p.index)}::int[]) AS u(doc, idx)
                      WHERE k.tenant_id = ${tenantId} AND k.document_id = u.doc AND k.chunk_index = u.idx RETURNING k.term, k.document_id)`
      : sql``;
    await sql`WITH old AS (DELETE FROM knowledge_term WHERE tenant_id = ${tenantId} AND document_id = ANY(${whole}::uuid[]) RETURNING term, document_id)${partly},
            delta AS (SELECT term, sum(d)::int AS d FROM (SELECT term, -1 AS d FROM old WHERE document_id = ANY(${counted}::uuid[])${
              pairs.length
                ? sql`
                                                         UNION ALL SELECT term, -1 FROM part WHERE document_id = ANY(${counted}::uuid[])`
                : sql``
            }
                                                         UNION ALL SELECT t, n FROM unnest(${[...added.keys()]}::text[], ${[...added.values()]}::int[]) AS a(t, n)) x
                       GROUP BY term HAVING sum(d) <> 0)
       INSERT INTO knowledge_term_df (tenant_id, term, df) SELECT ${tenantId}::uuid, term, d FROM delta ORDER BY term
       ON CONFLICT ON CONSTRAINT pk_knowledge_term_df DO UPDATE SET df = knowledge_term_df.df + EXCLUDED.df`.execute(tx);
    await insertPostingRows(tx, tenantId, rows);
    await this.markIndexed(tx, tenantId, ids, lengths, lexicalVersion);
  }

  /**
   * Adds postings of chunks of documents being written in groups (`knowledge_document.writing`), in the caller's
   * transaction, without touching the statistics: they count from {@link publishDocuments} on (docs/hot-paths.md
   * "A large file's write in groups").
   */
  async appendPostings(tx: Tx, tenantId: TenantId, docs: readonly { documentId: string; domain: string; chunks: readonly ChunkTerms[] }[]): Promise<void> {
    await insertPostingRows(tx, tenantId, await postingRows(docs));
  }

  /**
   * The last step of a write in groups, in the caller's transaction: the documents' chunks (all of them, their
   * postings already written by {@link appendPostings}) enter the tenant's statistics and document frequencies, and
   * the documents are marked indexed. Statistics row first, then frequencies in term order, as {@link replaceDocuments}.
   */
  async publishDocuments(
    tx: Tx,
    tenantId: TenantId,
    docs: readonly { documentId: string; chunks: readonly ChunkTerms[] }[],
    lexicalVersion: number,
  ): Promise<void> {
    const lengths = docs.map((d) => d.chunks.reduce((s, c) => s + c.length, 0));
    const chunks = docs.flatMap((d) => d.chunks);
    await this.adjustStats(
      tx,
      tenantId,
      chunks.length,
      lengths.reduce((a, b) => a + b, 0),
    );
    const added = await countTerms(chunks);
    const terms = [...added.keys()].sort();
    await sql`INSERT INTO knowledge_term_df (tenant_id, term, df)
         SELECT ${tenantId}::uuid, a.t, a.n FROM unnest(${terms}::text[], ${terms.map((t) => added.get(t) as number)}::int[]) AS a(t, n) ORDER BY a.t
       ON CONFLICT ON CONSTRAINT pk_knowledge_term_df DO UPDATE SET df = knowledge_term_df.df + EXCLUDED.df`.execute(tx);
    await this.markIndexed(
      tx,
      tenantId,
      docs.map((d) => d.documentId),
      lengths,
      lexicalVersion,
    );
  }

  /** How many chunks `[fromChunk, toChunk)` of a document each term is in (the postings of that range, counted by term). */
  async termCounts(tenantId: TenantId, documentId: string, fromChunk: number, toChunk: number): Promise<{ term: string; n: number }[]> {
    const { rows } = await sql<{ term: string; n: number }>`
      SELECT term, count(*)::int AS n FROM knowledge_term
       WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND chunk_index >= ${fromChunk} AND chunk_index < ${toChunk}
       GROUP BY term`.execute(this.database.db);
    return rows;
  }

  /**
   * Deletes the postings of chunks `[fromChunk, toChunk)` of a document still being written (they never counted in the
   * statistics), one statement on its own: a failed or abandoned write in groups is removed in groups too.
   */
  async deleteUncountedPostings(tenantId: TenantId, documentId: string, fromChunk: number, toChunk: number): Promise<void> {
    await sql`DELETE FROM knowledge_term k WHERE k.tenant_id = ${tenantId} AND k.document_id = ${documentId}
                AND k.chunk_index >= ${fromChunk} AND k.chunk_index < ${toChunk}
                AND EXISTS (SELECT 1 FROM knowledge_document d WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId} AND d.writing)`.execute(
      this.database.db,
    );
  }

  private async markIndexed(tx: Tx, tenantId: TenantId, ids: readonly string[], lengths: readonly number[], lexicalVersion: number): Promise<void> {
    await sql`UPDATE knowledge_document d SET lexical_version = ${lexicalVersion}, lexical_length = n.len
                FROM unnest(${ids}::uuid[], ${lengths}::float8[]) AS n(id, len) WHERE d.tenant_id = ${tenantId} AND d.id = n.id`.execute(tx);
  }

  /**
   * Takes a shown document out of the statistics without deleting its postings, in the caller's transaction (the first
   * step of its removal in groups, docs/hot-paths.md "A large document's removal in groups"): the chunk count and
   * length it added, then one frequency per term of its postings (term order, as every write), and the document
   * marked not indexed — its postings no longer count, as those of a document being written, and
   * {@link deleteUncountedPostings} deletes them once it is hidden.
   */
  async uncountDocument(tx: Tx, tenantId: TenantId, documentId: string, counted?: ReadonlyMap<string, number>): Promise<void> {
    const { rows } = await sql<{ lexical_length: number; chunks: number; indexed: boolean }>`
      SELECT lexical_length, ${INDEXED_CHUNKS} AS chunks, lexical_version > 0 AS indexed
        FROM knowledge_document WHERE tenant_id = ${tenantId} AND id = ${documentId}`.execute(tx);
    const doc = rows[0];
    if (!doc?.indexed) return;
    await this.adjustStats(tx, tenantId, -Number(doc.chunks), -Number(doc.lexical_length));
    if (counted) {
      const terms = [...counted.keys()].sort();
      await sql`INSERT INTO knowledge_term_df (tenant_id, term, df)
           SELECT ${tenantId}::uuid, a.t, -a.n FROM unnest(${terms}::text[], ${terms.map((t) => counted.get(t) as number)}::int[]) AS a(t, n) ORDER BY a.t
         ON CONFLICT ON CONSTRAINT pk_knowledge_term_df DO UPDATE SET df = knowledge_term_df.df + EXCLUDED.df`.execute(tx);
    } else {
      await sql`INSERT INTO knowledge_term_df (tenant_id, term, df)
           SELECT ${tenantId}::uuid, k.term, -count(*)::int FROM knowledge_term k WHERE k.tenant_id = ${tenantId} AND k.document_id = ${documentId}
            GROUP BY k.term ORDER BY k.term
         ON CONFLICT ON CONSTRAINT pk_knowledge_term_df DO UPDATE SET df = knowledge_term_df.df + EXCLUDED.df`.execute(tx);
    }
    await sql`UPDATE knowledge_document SET lexical_version = 0, lexical_length = 0 WHERE tenant_id = ${tenantId} AND id = ${documentId}`.execute(tx);
  }

  private async adjustStats(tx: Tx, tenantId: TenantId, chunks: number, length: number): Promise<void> {
    await sql`INSERT INTO knowledge_lexical_stats (tenant_id, chunk_count, total_length) VALUES (${tenantId}, GREATEST(${chunks}::bigint, 0), GREATEST(${length}::float8, 0))
       ON CONFLICT ON CONSTRAINT pk_knowledge_lexical_stats DO UPDATE SET
         chunk_count = GREATEST(knowledge_lexical_stats.chunk_count + ${chunks}::bigint, 0),
         total_length = GREATEST(knowledge_lexical_stats.total_length + ${length}::float8, 0)`.execute(tx);
  }

  /**
   * BM25 top chunks for the query terms, in one statement: IDF from the tenant's document
   * frequencies, the best {@link POSTINGS_PER_TERM} postings of each term and those tied with the last (index-only scan) among the
   * scope's documents (a metadata filter's documents are found first, GIN index, and tested before each
   * term's limit), summed per chunk, then the best `limit` chunks joined to their document and their
   * vector in `space`. Disabled chunks have no postings (docs/documents.md "Chunks").
   */
  async search(
    tenantId: TenantId,
    terms: readonly string[],
    space: VectorSpace,
    vector: readonly number[],
    limit: number,
    scope: SearchScope = {},
    db: Db = this.database.db,
  ): Promise<LexicalSearchResult> {
    return (await this.searchWithTranslation(tenantId, terms, null, space, vector, limit, scope, db)).own;
  }

  /**
   * {@link search} for the query's terms and, in the same statement, for their translations
   * (docs/retrieval.md "Cross-language retrieval"): a second term list ranked on its own, its chunks
   * measured against the translated query's vector. One round trip either way (docs/hot-paths.md).
   */
  async searchWithTranslation(
    tenantId: TenantId,
    terms: readonly string[],
    translation: { terms: readonly string[]; vector: readonly number[] } | null,
    space: VectorSpace,
    vector: readonly number[],
    limit: number,
    scope: SearchScope = {},
    db: Db = this.database.db,
  ): Promise<{ own: LexicalSearchResult; translated: LexicalSearchResult | null }> {
    const other = translation?.terms.length ? translation : null;
    if (!terms.length && !other) {
      const chunkCount = (await this.stats(tenantId, db)).chunkCount;
      return { own: { hits: [], idf: {}, chunkCount }, translated: null };
    }
    const query = lexicalSearchSql(tenantId, terms, other, space, vector, limit, scope);
    const { rows } = await sql<LexicalSearchRow>`WITH ${query.ctes} SELECT ${query.columns}`.execute(db);
    return parseLexicalSearchRow(rows[0] ?? {}, other !== null);
  }

  /** Documents whose postings were built by another analyzer version (re-index job), by id. */
  async staleDocuments(
    tenantId: TenantId,
    lexicalVersion: number,
    afterId: string | null,
    limit: number,
  ): Promise<{ id: string; domain: string; title: string; content: string; keywords: string[] }[]> {
    const { rows } = await sql<{ id: string; domain: string; title: string; content: string; keywords: string[] }>`
      SELECT id, domain, title, content, keywords FROM knowledge_document
        WHERE tenant_id = ${tenantId} AND lexical_version <> ${lexicalVersion} AND NOT writing AND (${afterId}::uuid IS NULL OR id > ${afterId}::uuid) ORDER BY id LIMIT ${limit}`.execute(
      this.database.db,
    );
    return rows;
  }

  /** How many documents `staleDocuments` would still return after `afterId` (the re-index job's progress total). */
  async countStaleDocuments(tenantId: TenantId, lexicalVersion: number, afterId: string | null): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM knowledge_document
        WHERE tenant_id = ${tenantId} AND lexical_version <> ${lexicalVersion} AND NOT writing AND (${afterId}::uuid IS NULL OR id > ${afterId}::uuid)`.execute(
      this.database.db,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Tenants with documents whose postings are missing or stale (boot check). */
  async tenantsWithStaleDocuments(lexicalVersion: number): Promise<string[]> {
    const rows = await this.database.db
      .selectFrom('knowledge_document')
      .select('tenant_id')
      .distinct()
      .where('lexical_version', '<>', lexicalVersion)
      // A document being written is indexed by its write (docs/hot-paths.md "A large file's write in groups").
      .where('writing', '=', false)
      .execute();
    return rows.map((r) => r.tenant_id);
  }

  /** Runs `work` in one transaction: the writes of a re-index, or reads that must see one snapshot (the grade fit's searches). */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }
}
