import type { TenantId } from '@arbiter/common';
import { type RawBuilder, sql } from '@arbiter/database';
import { type HitLocation, type SearchScope, toLocation, type VectorSpace } from './knowledge.repository.js';
import { HEADING_BOOST, HEADING_TERM_PREFIX, headingTerm } from './lexical/indexing.js';
import { ENGLISH_MARKER_WORDS } from './lexical/stop-words.js';
import { isStopWordTerm } from './lexical/text-analyzer.js';
import { beingWrittenCte, fileNameOf, metadataCondition, notBeingWritten, vectorDistance } from './search-sql.js';

/** One chunk found by the lexical index, resolved to its document and, when it has one, its vector. */
export interface LexicalHit extends HitLocation {
  documentId: string;
  chunkIndex: number;
  score: number;
  /** The score's part from content words in the chunk's own postings (no stop word, no heading field). */
  contentScore: number;
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

/**
 * Postings read per query term: the best ones by impact, enough to rank the top 50 chunks, and every posting tied with
 * the last of them — the index orders ties by the random document id, so a cut inside a tie would score another set of
 * chunks on another load of the same documents (libs/retrieval/README.md "Hybrid search").
 */
export const POSTINGS_PER_TERM = 200;

/**
 * At most this many postings of a term, ties included: a heading term of a large manual ties on every chunk of it
 * (thousands), and reading them all would cost each lookup naming the manual's title. Past it the cut is the index's
 * order again (libs/retrieval/README.md "Hybrid search").
 */
export const POSTINGS_TIED_MAX = 2_000;

/** The row of {@link lexicalSearchSql}'s columns: `n`, then `idf_o`/`hits_o` and, with a translation, `idf_t`/`hits_t`. */
export type LexicalSearchRow = Record<string, unknown>;

/**
 * The BM25 search of `LexicalRepository.searchWithTranslation` as CTEs and select-list columns, so that another
 * statement can carry it (the lookup's candidate generation, docs/hot-paths.md "Chat turn"). No database access.
 * One ranked list per term set — q (IDF from the tenant's document frequencies), p (the best
 * {@link POSTINGS_PER_TERM} postings of each term among the scope's documents — none of a document being written
 * (`wd`) —, summed per chunk, best `limit`
 * chunks and any tied with the last), r (their file path; the best `limit` by score, then file path and chunk), h (their
 * document, their chunk and its vector's distance to the list's vector) — aggregated to JSON columns.
 * An empty term list reads no postings and yields no hits.
 */
export function lexicalSearchSql(
  tenantId: TenantId,
  terms: readonly string[],
  translation: { terms: readonly string[]; vector: readonly number[] } | null,
  space: VectorSpace,
  vector: readonly number[],
  limit: number,
  scope: SearchScope,
): { ctes: RawBuilder<unknown>; columns: RawBuilder<unknown> } {
  const filter = metadataCondition(scope.filter, 'fd');
  const filtered = filter
    ? sql`fd AS MATERIALIZED (SELECT fd.id FROM knowledge_document fd WHERE fd.tenant_id = ${tenantId} AND ${filter}),\n            `
    : sql``;
  const conditions = sql`${scope.domain ? sql` AND k.domain = ${scope.domain}` : sql``}${filter ? sql` AND k.document_id IN (SELECT id FROM fd)` : sql``} AND ${notBeingWritten('k')}`;
  const list = (name: string, termList: readonly string[], listVector: readonly number[]) => {
    const q = sql.raw(`q${name}`);
    const p = sql.raw(`p${name}`);
    const r = sql.raw(`r${name}`);
    const h = sql.raw(`h${name}`);
    // A list is the same on every database loaded with the same documents (docs/retrieval.md "Hybrid search"): the
    // score is rounded to 1e-9, because a float sum depends on the order its rows arrive in (the tables' physical
    // order); the chunks tied at the cut all come through (WITH TIES) and are cut by file path, not by random id.
    // The terms as rows joined to the frequencies, not `term = ANY(array)`: on a small tenant the planner scans the
    // frequencies and tested every row against every term (0.7 ms of a 2.2 ms statement for 70 translated terms).
    // A stop word's IDF is over the chunks in English (docs/retrieval.md "Lexical index"): in a tenant of Chinese
    // manuals with a few English pages, `the` is rare among all chunks but says nothing about which English page.
    // Every term is searched in the body and in the heading field (docs/retrieval.md "Lexical index"); a heading term's
    // weight is its own IDF (among the headings) at HEADING_BOOST.
    const searched = [...termList, ...termList.map(headingTerm).filter((t): t is string => t !== null)];
    const stopWords = searched.filter((t) => isStopWordTerm(unmarked(t)));
    const chunksFor = stopWords.length ? sql`CASE WHEN f.term = ANY(${stopWords}::varchar[]) THEN greatest(e.n, f.df) ELSE s.n END` : sql`s.n`;
    return sql`${q} AS (SELECT f.term, ln(1 + (${chunksFor} - f.df + 0.5) / (f.df + 0.5))
                           * CASE WHEN left(f.term, 1) = ${HEADING_TERM_PREFIX} THEN ${sql.lit(HEADING_BOOST)}::float8 ELSE 1 END AS idf,
                           left(f.term, 1) <> ${HEADING_TERM_PREFIX}${stopWords.length ? sql` AND f.term <> ALL(${stopWords}::varchar[])` : sql``} AS content
                    FROM (SELECT DISTINCT term FROM unnest(${searched}::varchar[]) AS u(term)) u
                    JOIN knowledge_term_df f ON f.tenant_id = ${tenantId} AND f.term = u.term, s${stopWords.length ? sql`, e` : sql``} WHERE f.df > 0),
            ${p} AS (SELECT t.document_id, t.chunk_index, round(sum(t.impact * q.idf) * 1e9::float8) / 1e9::float8 AS score,
                         round(coalesce(sum(t.impact * q.idf) FILTER (WHERE q.content), 0) * 1e9::float8) / 1e9::float8 AS content_score
                    FROM ${q} q CROSS JOIN LATERAL (
                      SELECT * FROM (SELECT k.document_id, k.chunk_index, k.impact FROM knowledge_term k
                       WHERE k.tenant_id = ${tenantId} AND k.term = q.term${conditions}
                       ORDER BY k.impact DESC FETCH FIRST ${sql.lit(POSTINGS_PER_TERM)} ROWS WITH TIES) tied
                       LIMIT ${sql.lit(POSTINGS_TIED_MAX)}) t
                   GROUP BY t.document_id, t.chunk_index
                   ORDER BY score DESC FETCH FIRST (${limit}) ROWS WITH TIES),
            ${r} AS (SELECT p.document_id, p.chunk_index, p.score, p.content_score, d.file_path
                    FROM ${p} p
                    CROSS JOIN LATERAL (SELECT file_path FROM knowledge_document WHERE id = p.document_id AND tenant_id = ${tenantId}) d
                   ORDER BY p.score DESC, d.file_path, p.chunk_index LIMIT ${limit}),
            ${h} AS (SELECT r.document_id, r.chunk_index, r.score, r.content_score, r.file_path, d.title, d.domain, d.keywords,
                         coalesce(c.content, left(d.content, 2000)) AS content, c.distance,
                         ${fileNameOf(tenantId)} AS file_name, c.page, c.page_end, c.section
                    FROM ${r} r
                    CROSS JOIN LATERAL (SELECT title, domain, content, keywords, file_id FROM knowledge_document WHERE id = r.document_id AND tenant_id = ${tenantId}) d
                    LEFT JOIN LATERAL (SELECT c.content, c.page, c.page_end, c.section, ${vectorDistance(space.dim, listVector)} AS distance FROM knowledge_chunk c
                                        WHERE c.tenant_id = ${tenantId} AND c.document_id = r.document_id AND c.embedding_model = ${space.model} AND c.chunk_index = r.chunk_index AND c.embedding_dim = ${space.dim}) c ON TRUE)`;
  };
  const lists = [list('o', terms, vector), ...(translation ? [list('t', translation.terms, translation.vector)] : [])];
  // Equal scores in file-path order, as at the list's cut above.
  const select = (name: string) =>
    sql.raw(
      `(SELECT json_object_agg(term, idf) FROM q${name}) AS idf_${name}, (SELECT json_agg(h ORDER BY h.score DESC, h.file_path, h.chunk_index) FROM h${name} h) AS hits_${name}`,
    );
  return {
    ctes: sql`${filtered}${beingWrittenCte(tenantId)},
            s AS (SELECT chunk_count::float8 AS n FROM knowledge_lexical_stats WHERE tenant_id = ${tenantId}),${
              [terms, translation?.terms ?? []].some((list) => list.some(isStopWordTerm))
                ? sql`
            e AS (SELECT coalesce(max(df), 0)::float8 AS n FROM knowledge_term_df
                   WHERE tenant_id = ${tenantId} AND term IN (${sql.join(ENGLISH_MARKER_WORDS.map((w) => sql.lit(w)))})),`
                : sql``
            }
            ${sql.join(lists, sql`,\n            `)}`,
    columns: sql`(SELECT n FROM s) AS n, ${select('o')}${translation ? sql`, ${select('t')}` : sql``}`,
  };
}

interface RawLexicalHit {
  document_id: string;
  chunk_index: number;
  score: number;
  content_score: number;
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

/** A term without its heading-field mark. */
function unmarked(term: string): string {
  return term.startsWith(HEADING_TERM_PREFIX) ? term.slice(HEADING_TERM_PREFIX.length) : term;
}

/** The IDF of the statement's body terms (a heading term's weight is of the list's order only). */
function bodyIdf(weights: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(weights).filter(([term]) => !term.startsWith(HEADING_TERM_PREFIX)));
}

/** The lists of a {@link lexicalSearchSql} row; `translated` only when the statement had a translation. */
export function parseLexicalSearchRow(row: LexicalSearchRow, translated: boolean): { own: LexicalSearchResult; translated: LexicalSearchResult | null } {
  const chunkCount = Number(row.n ?? 0);
  const result = (name: string): LexicalSearchResult => ({
    idf: bodyIdf((row[`idf_${name}`] as Record<string, number> | null) ?? {}),
    chunkCount,
    hits: ((row[`hits_${name}`] as RawLexicalHit[] | null) ?? []).map((h) => ({
      documentId: h.document_id,
      chunkIndex: h.chunk_index,
      score: Number(h.score),
      contentScore: Number(h.content_score),
      filePath: h.file_path,
      title: h.title,
      domain: h.domain,
      content: h.content,
      distance: h.distance === null ? null : Number(h.distance),
      keywords: h.keywords ?? [],
      ...toLocation(h),
    })),
  });
  return { own: result('o'), translated: translated ? result('t') : null };
}
