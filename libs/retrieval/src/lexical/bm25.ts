/**
 * BM25 (Robertson/Spärck Jones, as in Lucene) split into an index-time and a query-time part, so the
 * database can keep postings ordered by their contribution (docs/retrieval.md "Lexical index"):
 *
 *   score(q, c) = Σ_{t ∈ q} idf(t) · impact(t, c)
 *   impact(t, c) = tf·(k1 + 1) / (tf + k1·(1 − b + b·len(c)/avgLen))
 *   idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
 *
 * `tf` is the field-weighted frequency (a title or keyword occurrence counts `titleWeight` times a
 * body one, BM25F-style); `avgLen` is the tenant's average chunk length when the chunk is indexed.
 * Pure: no Nest, no database.
 */
export interface Bm25Params {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Readonly<Bm25Params> = Object.freeze({ k1: 1.2, b: 0.75 });

export function bm25Impact(tf: number, length: number, averageLength: number, params: Bm25Params = DEFAULT_BM25): number {
  if (!(tf > 0)) return 0;
  const avg = averageLength > 0 ? averageLength : Math.max(length, 1);
  return (tf * (params.k1 + 1)) / (tf + params.k1 * (1 - params.b + (params.b * length) / avg));
}

export function bm25Idf(documentFrequency: number, documentCount: number): number {
  const n = Math.max(documentCount, documentFrequency, 0);
  const df = Math.max(documentFrequency, 0);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The best score any chunk could reach for these query terms (every term present with a saturated
 * tf): used to express a lexical score as a share in [0, 1] that means the same in every tenant.
 */
export function bm25MaxScore(idfs: readonly number[], params: Bm25Params = DEFAULT_BM25): number {
  return idfs.reduce((sum, idf) => sum + idf * (params.k1 + 1), 0);
}

export interface ChunkPosting {
  term: string;
  tf: number;
  impact: number;
}

/** Postings of one chunk: its field-weighted term frequencies turned into impacts. */
export function chunkPostings(
  termFrequency: ReadonlyMap<string, number>,
  length: number,
  averageLength: number,
  params: Bm25Params = DEFAULT_BM25,
): ChunkPosting[] {
  return [...termFrequency].map(([term, tf]) => ({ term, tf, impact: bm25Impact(tf, length, averageLength, params) }));
}
