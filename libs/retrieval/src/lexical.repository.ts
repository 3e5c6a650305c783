import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { distanceSql, toVectorLiteral } from './vector-sql.js';
import { FILE_NAME_SQL, type HitLocation, type SearchScope, toLocation, type VectorSpace } from './knowledge.repository.js';
import { metadataFilterSql } from './metadata-filter.js';

type Db = DataSource | EntityManager;

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

/** One chunk found by the lexical index, resolved to its document and, when it has one, its vector. */
export interface LexicalHit extends HitLocation {
  documentId: string;
  chunkIndex: number;
  score: number;
  filePath: string;
  title: string;
  domain: string;
  /** The chunk's text in the query's vector space; the document's beginning when it has none there. */
  content: string;
  /** L2 distance of that chunk to the query vector; null when the document has no vector in the space. */
  distance: number | null;
  keywords: string[];
}

export interface LexicalSearchResult {
  hits: LexicalHit[];
  /** IDF of each query term the tenant's corpus contains. */
  idf: Record<string, number>;
  /** Chunks in the tenant's lexical index (N of the IDF). */
  chunkCount: number;
}

/** Postings read per query term: the best ones by impact, enough to rank the top 50 chunks. */
export const POSTINGS_PER_TERM = 200;

/**
 * The BM25 lexical index (migrations/0070_retrieval_lexical.sql): postings with their impacts,
 * document frequencies and length statistics per tenant. Writes run inside the caller's transaction
 * (the document upsert), so the index always matches the stored documents.
 */
@Injectable()
export class LexicalRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async stats(tenantId: TenantId, db: Db = this.ds): Promise<LexicalStats> {
    const rows: { chunk_count: string; total_length: number }[] = await db.query(
      'SELECT chunk_count, total_length FROM knowledge_lexical_stats WHERE tenant_id = $1',
      [tenantId],
    );
    const n = Number(rows[0]?.chunk_count ?? 0);
    return { chunkCount: n, averageLength: n > 0 ? Number(rows[0].total_length) / n : 0 };
  }

  /**
   * Replaces the postings of documents (old ones out, new ones in) and adjusts document frequencies
   * and length statistics, in the caller's transaction. The tenant's statistics row is locked first,
   * then document frequencies in term order, so concurrent imports of one tenant cannot deadlock.
   */
  async replaceDocuments(
    em: EntityManager,
    tenantId: TenantId,
    docs: readonly { documentId: string; domain: string; chunks: readonly ChunkTerms[] }[],
    lexicalVersion: number,
  ): Promise<void> {
    if (!docs.length) return;
    const ids = docs.map((d) => d.documentId);
    const previous: { lexical_length: number; chunks: number }[] = await em.query(
      `SELECT lexical_length, CASE WHEN lexical_version > 0 THEN chunk_count ELSE 0 END AS chunks FROM knowledge_document WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
      [tenantId, ids],
    );
    const oldLength = previous.reduce((s, r) => s + Number(r.lexical_length), 0);
    const oldChunks = previous.reduce((s, r) => s + Number(r.chunks), 0);
    const lengths = docs.map((d) => d.chunks.reduce((s, c) => s + c.length, 0));
    const newChunks = docs.reduce((s, d) => s + d.chunks.length, 0);
    await this.adjustStats(em, tenantId, newChunks - oldChunks, lengths.reduce((a, b) => a + b, 0) - oldLength);
    const terms: string[] = [];
    const impacts: number[] = [];
    const indexes: number[] = [];
    const owners: string[] = [];
    const domains: string[] = [];
    for (const d of docs) {
      for (const c of d.chunks) {
        c.terms.forEach((t, k) => {
          terms.push(t);
          impacts.push(c.impacts[k]);
          indexes.push(c.chunkIndex);
          owners.push(d.documentId);
          domains.push(d.domain);
        });
      }
    }
    // Document frequencies move by the new postings per term (pre-counted here: one array element per
    // distinct term, not per posting, keeps the statement and its serialisation small).
    const added = new Map<string, number>();
    for (const t of terms) added.set(t, (added.get(t) ?? 0) + 1);
    await em.query(
      `WITH old AS (DELETE FROM knowledge_term WHERE tenant_id = $1 AND document_id = ANY($2::uuid[]) RETURNING term),
            delta AS (SELECT term, sum(d)::int AS d FROM (SELECT term, -1 AS d FROM old UNION ALL SELECT t, n FROM unnest($3::text[], $4::int[]) AS a(t, n)) x GROUP BY term HAVING sum(d) <> 0)
       INSERT INTO knowledge_term_df (tenant_id, term, df) SELECT $1, term, d FROM delta ORDER BY term
       ON CONFLICT ON CONSTRAINT pk_knowledge_term_df DO UPDATE SET df = knowledge_term_df.df + EXCLUDED.df`,
      [tenantId, ids, [...added.keys()], [...added.values()]],
    );
    // Statements of bounded size: the driver serialises each on the API's thread (README, Faults and outages).
    const BATCH = 5_000;
    for (let i = 0; i < terms.length; i += BATCH) {
      await em.query(
        `INSERT INTO knowledge_term (tenant_id, term, impact, document_id, chunk_index, domain)
         SELECT $1, t.term, t.impact, t.doc, t.idx, t.domain FROM unnest($2::text[], $3::real[], $4::uuid[], $5::int[], $6::text[]) AS t(term, impact, doc, idx, domain)`,
        [
          tenantId,
          terms.slice(i, i + BATCH),
          impacts.slice(i, i + BATCH),
          owners.slice(i, i + BATCH),
          indexes.slice(i, i + BATCH),
          domains.slice(i, i + BATCH),
        ],
      );
    }
    await em.query(
      `UPDATE knowledge_document d SET lexical_version = $2, lexical_length = n.len FROM unnest($3::uuid[], $4::float8[]) AS n(id, len) WHERE d.tenant_id = $1 AND d.id = n.id`,
      [tenantId, lexicalVersion, ids, lengths],
    );
  }

  /** Removes a document's postings and their statistics (before the document row is deleted). */
  async removeDocument(em: EntityManager, tenantId: TenantId, documentId: string): Promise<void> {
    await this.replaceDocuments(em, tenantId, [{ documentId, domain: '', chunks: [] }], 0);
  }

  private async adjustStats(em: EntityManager, tenantId: TenantId, chunks: number, length: number): Promise<void> {
    await em.query(
      `INSERT INTO knowledge_lexical_stats (tenant_id, chunk_count, total_length) VALUES ($1, GREATEST($2::bigint, 0), GREATEST($3::float8, 0))
       ON CONFLICT ON CONSTRAINT pk_knowledge_lexical_stats DO UPDATE SET
         chunk_count = GREATEST(knowledge_lexical_stats.chunk_count + $2::bigint, 0),
         total_length = GREATEST(knowledge_lexical_stats.total_length + $3::float8, 0)`,
      [tenantId, chunks, length],
    );
  }

  /**
   * BM25 top chunks for the query terms, in one statement: IDF from the tenant's document
   * frequencies, the best {@link POSTINGS_PER_TERM} postings of each term (index-only scan) among the
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
    db: Db = this.ds,
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
    db: Db = this.ds,
  ): Promise<{ own: LexicalSearchResult; translated: LexicalSearchResult | null }> {
    const other = translation?.terms.length ? translation : null;
    if (!terms.length && !other) {
      const chunkCount = (await this.stats(tenantId, db)).chunkCount;
      return { own: { hits: [], idf: {}, chunkCount }, translated: null };
    }
    const params: unknown[] = [tenantId, limit, space.model, space.dim];
    let conditions = '';
    if (scope.domain) {
      params.push(scope.domain);
      conditions += ` AND k.domain = $${params.length}`;
    }
    const filter = metadataFilterSql(scope.filter, 'fd', params);
    const filtered = filter ? `fd AS MATERIALIZED (SELECT fd.id FROM knowledge_document fd WHERE fd.tenant_id = $1 AND ${filter}),\n            ` : '';
    if (filter) conditions += ' AND k.document_id IN (SELECT id FROM fd)';
    // One ranked list per term set: q (IDF), p (summed impacts, best `limit` chunks), h (document and vector).
    const list = (name: string, termList: readonly string[], listVector: readonly number[]) => {
      params.push(termList, toVectorLiteral(listVector));
      const t = `$${params.length - 1}`;
      const v = `$${params.length}`;
      return `q${name} AS (SELECT f.term, ln(1 + (s.n - f.df + 0.5) / (f.df + 0.5)) AS idf
                    FROM knowledge_term_df f, s WHERE f.tenant_id = $1 AND f.term = ANY(${t}::varchar[]) AND f.df > 0),
            p${name} AS (SELECT t.document_id, t.chunk_index, sum(t.impact * q.idf) AS score
                    FROM q${name} q CROSS JOIN LATERAL (
                      SELECT k.document_id, k.chunk_index, k.impact FROM knowledge_term k
                       WHERE k.tenant_id = $1 AND k.term = q.term${conditions}
                       ORDER BY k.impact DESC LIMIT ${POSTINGS_PER_TERM}) t
                   GROUP BY t.document_id, t.chunk_index
                   ORDER BY score DESC, t.document_id, t.chunk_index LIMIT $2),
            h${name} AS (SELECT p.document_id, p.chunk_index, p.score, d.file_path, d.title, d.domain, d.keywords,
                         coalesce(c.content, left(d.content, 2000)) AS content, c.distance,
                         ${FILE_NAME_SQL} AS file_name, c.page, c.page_end, c.section
                    FROM p${name} p
                    CROSS JOIN LATERAL (SELECT file_path, title, domain, content, keywords, file_id FROM knowledge_document WHERE id = p.document_id AND tenant_id = $1) d
                    LEFT JOIN LATERAL (SELECT c.content, c.page, c.page_end, c.section, ${distanceSql(space.dim, v)} AS distance FROM knowledge_chunk c
                                        WHERE c.document_id = p.document_id AND c.embedding_model = $3 AND c.chunk_index = p.chunk_index AND c.embedding_dim = $4) c ON TRUE)`;
    };
    const lists = [list('o', terms, vector), ...(other ? [list('t', other.terms, other.vector)] : [])];
    const select = (name: string) =>
      `(SELECT json_object_agg(term, idf) FROM q${name}) AS idf_${name}, (SELECT json_agg(h ORDER BY h.score DESC, h.document_id, h.chunk_index) FROM h${name} h) AS hits_${name}`;
    const rows: Record<string, unknown>[] = await db.query(
      `WITH ${filtered}s AS (SELECT chunk_count::float8 AS n FROM knowledge_lexical_stats WHERE tenant_id = $1),
            ${lists.join(',\n            ')}
       SELECT (SELECT n FROM s) AS n, ${select('o')}${other ? `, ${select('t')}` : ''}`,
      params,
    );
    const r = rows[0] ?? {};
    const chunkCount = Number(r.n ?? 0);
    const result = (name: string): LexicalSearchResult => ({
      idf: (r[`idf_${name}`] as Record<string, number> | null) ?? {},
      chunkCount,
      hits: ((r[`hits_${name}`] as RawLexicalHit[] | null) ?? []).map((h) => ({
        documentId: h.document_id,
        chunkIndex: h.chunk_index,
        score: Number(h.score),
        filePath: h.file_path,
        title: h.title,
        domain: h.domain,
        content: h.content,
        distance: h.distance === null ? null : Number(h.distance),
        keywords: h.keywords ?? [],
        ...toLocation(h),
      })),
    });
    return { own: result('o'), translated: other ? result('t') : null };
  }

  /** Documents whose postings were built by another analyzer version (re-index job), by id. */
  async staleDocuments(
    tenantId: TenantId,
    lexicalVersion: number,
    afterId: string | null,
    limit: number,
  ): Promise<{ id: string; domain: string; title: string; content: string; keywords: string[] }[]> {
    return this.ds.query(
      `SELECT id, domain, title, content, keywords FROM knowledge_document
        WHERE tenant_id = $1 AND lexical_version <> $2 AND ($3::uuid IS NULL OR id > $3::uuid) ORDER BY id LIMIT $4`,
      [tenantId, lexicalVersion, afterId, limit],
    );
  }

  /** How many documents `staleDocuments` would still return after `afterId` (the re-index job's progress total). */
  async countStaleDocuments(tenantId: TenantId, lexicalVersion: number, afterId: string | null): Promise<number> {
    const rows: { n: number }[] = await this.ds.query(
      `SELECT count(*)::int AS n FROM knowledge_document WHERE tenant_id = $1 AND lexical_version <> $2 AND ($3::uuid IS NULL OR id > $3::uuid)`,
      [tenantId, lexicalVersion, afterId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Tenants with documents whose postings are missing or stale (boot check). */
  async tenantsWithStaleDocuments(lexicalVersion: number): Promise<string[]> {
    const rows: { tenant_id: string }[] = await this.ds.query('SELECT DISTINCT tenant_id FROM knowledge_document WHERE lexical_version <> $1', [
      lexicalVersion,
    ]);
    return rows.map((r) => r.tenant_id);
  }

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }
}

interface RawLexicalHit {
  document_id: string;
  chunk_index: number;
  score: number;
  file_path: string;
  title: string;
  domain: string;
  content: string;
  distance: number | null;
  keywords: string[] | null;
  file_name: string | null;
  page: number | null;
  page_end: number | null;
  section: string[] | null;
}
