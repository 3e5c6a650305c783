import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type Tx } from '@arbiter/database';
import type { VectorSpace } from './knowledge.repository.js';
import { toVectorLiteral } from './vector-sql.js';

/** One chunk of a document as an operator reviews it (docs/documents.md "Chunks"). */
export interface ChunkView {
  chunkIndex: number;
  content: string;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
  disabled: boolean;
}

/** What an edit sees of the chunk and its document, read under the document's row lock. */
export interface ChunkState {
  title: string;
  keywords: string[];
  /** The analyzer version of the document's postings; 0 when it has none yet. */
  lexicalVersion: number;
  content: string;
  /** The chunk's section path (indexed with its text, docs/retrieval.md "Chunk context"). */
  section: string[] | null;
  disabled: boolean;
}

/** The postings of the chunk after the edit, and how its length in terms changes. */
export interface ChunkPostings {
  terms: readonly string[];
  impacts: readonly number[];
  lengthDelta: number;
}

/** What an edit writes, decided from the locked {@link ChunkState}. */
export interface ChunkWrite {
  /** New text and its vector in the current space. */
  content?: { text: string; embedding: readonly number[] };
  disabled?: boolean;
  /** The chunk's postings after the edit; null leaves the lexical index alone (the document awaits its re-index). */
  postings: ChunkPostings | null;
}

export type ChunkEditOutcome = { found: 'document' | 'chunk' | 'none'; chunk?: ChunkView };

interface ChunkRow {
  chunk_index: number;
  content: string;
  page: number | null;
  page_end: number | null;
  section: unknown;
  disabled_at: Date | null;
}

const toView = (r: ChunkRow): ChunkView => ({
  chunkIndex: r.chunk_index,
  content: r.content,
  page: r.page,
  pageEnd: r.page_end,
  section: Array.isArray(r.section) ? (r.section as string[]) : null,
  disabled: r.disabled_at !== null,
});

/**
 * The chunks of one document, for review and correction (docs/documents.md "Chunks"). On the typed data
 * layer (docs/data-layer.md). An edit changes the chunk, its vector and its lexical postings (with the
 * document frequencies and length statistics, as `LexicalRepository.replaceDocuments` keeps them) in one
 * transaction: locks are taken document row first, then the tenant's statistics row, then document
 * frequencies in term order — the order of an import — so edits and imports cannot deadlock.
 */
@Injectable()
export class KnowledgeChunkRepository {
  constructor(private readonly database: Database) {}

  /** Whether the tenant has this document. */
  async documentExists(tenantId: TenantId, documentId: string): Promise<boolean> {
    const row = await this.database.db
      .selectFrom('knowledge_document')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', documentId)
      // A document being written in groups is not shown until it is whole (docs/hot-paths.md "A large file's write in groups").
      .where('writing', '=', false)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The document's title (embedded with each chunk), null when the tenant has no such document. */
  /**
   * What a chunk's new text is embedded with (docs/retrieval.md "Chunk context"): its document's title and the
   * chunk's section path (null when the chunk has none). Null when the document does not exist.
   */
  async embeddingContext(tenantId: TenantId, documentId: string, chunkIndex: number): Promise<{ title: string; section: string[] | null } | null> {
    const row = await this.database.db
      .selectFrom('knowledge_document as d')
      .leftJoin('knowledge_chunk as c', (j) =>
        j.onRef('c.tenant_id', '=', 'd.tenant_id').onRef('c.document_id', '=', 'd.id').on('c.chunk_index', '=', chunkIndex),
      )
      .select(['d.title', 'c.section'])
      .where('d.tenant_id', '=', tenantId)
      .where('d.id', '=', documentId)
      .where('d.writing', '=', false)
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    return { title: row.title, section: Array.isArray(row.section) ? (row.section as string[]) : null };
  }

  /** Up to `limit` chunks of the document in `space` after chunk index `after` (-1: from the start), in order. */
  async list(tenantId: TenantId, documentId: string, space: VectorSpace, after: number, limit: number): Promise<ChunkView[]> {
    const rows = await this.database.db
      .selectFrom('knowledge_chunk')
      .select(['chunk_index', 'content', 'page', 'page_end', 'section', 'disabled_at'])
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where('embedding_model', '=', space.model)
      .where('chunk_index', '>', after)
      .orderBy('chunk_index')
      .limit(limit)
      .execute();
    return rows.map(toView);
  }

  /**
   * The document's stored chunks, one per index: the current space's row where there is one (an edit leaves
   * only that row new), else another space's — what a re-embed and a lexical re-index start from, so edits,
   * disabled chunks and a file's pages and sections survive them (docs/documents.md "Chunks").
   */
  async stored(tenantId: TenantId, documentId: string, space: VectorSpace): Promise<ChunkView[]> {
    const rows = await this.database.db
      .selectFrom('knowledge_chunk')
      .select(['chunk_index', 'content', 'page', 'page_end', 'section', 'disabled_at'])
      .distinctOn('chunk_index')
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .orderBy('chunk_index')
      .orderBy(sql`embedding_model = ${space.model}`, 'desc')
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toView);
  }

  /**
   * Edits the document's chunk at `chunkIndex` in one transaction (docs/documents.md "Chunks"): new text →
   * the current space's row gets it with its new vector and the rows of other spaces for that index are
   * deleted (their vectors are of the old text); `disabled` applies to the chunk's row in every space; the
   * chunk's postings are replaced by `decide`'s (document frequencies, length statistics and the document's
   * lexical length moved by the same amounts). `decide` runs under the document's row lock.
   */
  async edit(
    tenantId: TenantId,
    documentId: string,
    chunkIndex: number,
    space: VectorSpace,
    decide: (state: ChunkState) => ChunkWrite,
    record: (tx: Tx, before: ChunkState) => Promise<void>,
  ): Promise<ChunkEditOutcome> {
    return this.database.transaction(async (tx) => {
      const doc = await tx
        .selectFrom('knowledge_document')
        .select(['title', 'keywords', 'lexical_version'])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', documentId)
        .where('writing', '=', false)
        .forUpdate()
        .executeTakeFirst();
      if (!doc) return { found: 'none' };
      const chunk = await tx
        .selectFrom('knowledge_chunk')
        .select(['content', 'section', 'disabled_at'])
        .where('tenant_id', '=', tenantId)
        .where('document_id', '=', documentId)
        .where('embedding_model', '=', space.model)
        .where('chunk_index', '=', chunkIndex)
        .executeTakeFirst();
      if (!chunk) return { found: 'document' };
      const state: ChunkState = {
        title: doc.title,
        keywords: Array.isArray(doc.keywords) ? (doc.keywords as string[]) : [],
        lexicalVersion: doc.lexical_version,
        content: chunk.content,
        section: Array.isArray(chunk.section) ? (chunk.section as string[]) : null,
        disabled: chunk.disabled_at !== null,
      };
      const write = decide(state);
      if (write.postings) await this.replacePostings(tx, tenantId, documentId, chunkIndex, write.postings);
      if (write.content) {
        await tx
          .updateTable('knowledge_chunk')
          .set({ content: write.content.text, embedding: sql<string>`${toVectorLiteral(write.content.embedding)}::vector` })
          .where('tenant_id', '=', tenantId)
          .where('document_id', '=', documentId)
          .where('embedding_model', '=', space.model)
          .where('chunk_index', '=', chunkIndex)
          .execute();
        await tx
          .deleteFrom('knowledge_chunk')
          .where('tenant_id', '=', tenantId)
          .where('document_id', '=', documentId)
          .where('embedding_model', '<>', space.model)
          .where('chunk_index', '=', chunkIndex)
          .execute();
      }
      if (write.disabled !== undefined) {
        // A chunk already disabled keeps its time: filtered, not `coalesce(disabled_at, now())`, which Citus refuses
        // (a STABLE function beside a column reference in an UPDATE; docs/SCALING.md "Running on Citus").
        await tx
          .updateTable('knowledge_chunk')
          .set({ disabled_at: write.disabled ? sql<Date>`now()` : null })
          .where('tenant_id', '=', tenantId)
          .where('document_id', '=', documentId)
          .where('chunk_index', '=', chunkIndex)
          .$if(write.disabled, (q) => q.where('disabled_at', 'is', null))
          .execute();
      }
      const after = await tx
        .selectFrom('knowledge_chunk')
        .select(['chunk_index', 'content', 'page', 'page_end', 'section', 'disabled_at'])
        .where('tenant_id', '=', tenantId)
        .where('document_id', '=', documentId)
        .where('embedding_model', '=', space.model)
        .where('chunk_index', '=', chunkIndex)
        .executeTakeFirstOrThrow();
      // The audit entry of the edit, in its transaction (docs/http-edge.md "Audit log").
      await record(tx, state);
      return { found: 'chunk', chunk: toView(after) };
    });
  }

  /** The chunk's postings replaced, in the order of an import's locks: statistics row, then document frequencies by term. */
  private async replacePostings(tx: Tx, tenantId: TenantId, documentId: string, chunkIndex: number, postings: ChunkPostings): Promise<void> {
    await sql`INSERT INTO knowledge_lexical_stats (tenant_id, chunk_count, total_length) VALUES (${tenantId}, 0, GREATEST(${postings.lengthDelta}::float8, 0))
              ON CONFLICT ON CONSTRAINT pk_knowledge_lexical_stats DO UPDATE SET
                total_length = GREATEST(knowledge_lexical_stats.total_length + ${postings.lengthDelta}::float8, 0)`.execute(tx);
    await sql`WITH old AS (DELETE FROM knowledge_term WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND chunk_index = ${chunkIndex} RETURNING term),
                   delta AS (SELECT term, sum(d)::int AS d FROM (SELECT term, -1 AS d FROM old UNION ALL SELECT t, 1 FROM unnest(${postings.terms}::text[]) AS a(t)) x
                             GROUP BY term HAVING sum(d) <> 0)
              INSERT INTO knowledge_term_df (tenant_id, term, df) SELECT ${tenantId}, term, d FROM delta ORDER BY term
              ON CONFLICT ON CONSTRAINT pk_knowledge_term_df DO UPDATE SET df = knowledge_term_df.df + EXCLUDED.df`.execute(tx);
    if (postings.terms.length) {
      await sql`INSERT INTO knowledge_term (tenant_id, term, impact, document_id, chunk_index, domain)
                SELECT ${tenantId}, t.term, t.impact, ${documentId}, ${chunkIndex}, d.domain
                  FROM unnest(${postings.terms}::text[], ${postings.impacts}::real[]) AS t(term, impact)
                  JOIN knowledge_document d ON d.tenant_id = ${tenantId} AND d.id = ${documentId}`.execute(tx);
    }
    // The document's `updated_at` moves with its postings: a removal that counted them before taking its lock sees it
    // (docs/hot-paths.md "A large document's removal in groups").
    await tx
      .updateTable('knowledge_document')
      .set({ lexical_length: sql<number>`lexical_length + ${postings.lengthDelta}::float8`, updated_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', documentId)
      .execute();
  }
}
