import { analyzeText, MAX_TERM_LENGTH, termFrequencies } from './text-analyzer.js';
import { type Bm25Params, chunkPostings, DEFAULT_BM25 } from './bm25.js';

/**
 * What the lexical index stores for a document's chunks (docs/retrieval.md "Lexical index"): the title and
 * keywords (the heading) belong to every chunk (as they are embedded with every chunk), once in the chunk's own
 * postings and again as a field of their own — `^`-marked terms with the heading's length norm, searched with
 * every query term at {@link HEADING_BOOST} (BM25 per field, summed). Pure: no Nest, no database.
 */
export const DEFAULT_TITLE_WEIGHT = 1;

/** Marks a heading-field term (`^reset`): a term never starts with it. */
export const HEADING_TERM_PREFIX = '^';

/** A heading's length norm reads this average (terms): a tenant's measured one was 8.5–12.5 on the benchmark sets. */
export const AVERAGE_HEADING_LENGTH = 10;

/** A heading-field match weighs this share of a body match of the same IDF and impact (chosen on the defaults' sets). */
export const HEADING_BOOST = 0.5;

/** The heading-field term of an index term; null when it would not fit the term column. */
export function headingTerm(term: string): string | null {
  return term.length < MAX_TERM_LENGTH ? `${HEADING_TERM_PREFIX}${term}` : null;
}

export interface IndexedChunk {
  chunkIndex: number;
  terms: string[];
  impacts: number[];
  length: number;
}

export function indexChunks(
  title: string,
  keywords: readonly string[],
  chunks: readonly string[],
  averageLength: number,
  options: { params?: Bm25Params; titleWeight?: number } = {},
): IndexedChunk[] {
  return indexAnalyzed(
    analyzeHeading(title, keywords),
    chunks.map((c) => analyzeText(c)),
    averageLength,
    options,
  );
}

/** The title's and keywords' terms, which count for every chunk of the document. */
export function analyzeHeading(title: string, keywords: readonly string[]): string[] {
  return [...analyzeText(title), ...analyzeText(keywords.join(' \n '))];
}

/**
 * {@link indexChunks} after analysis: callers on the API's thread analyse chunk by chunk with pauses
 * (analysis is the costly part) and then compute the postings here.
 */
export function indexAnalyzed(
  heading: readonly string[],
  bodies: readonly string[][],
  averageLength: number,
  options: { params?: Bm25Params; titleWeight?: number } = {},
): IndexedChunk[] {
  const avg = lengthNorm(heading, bodies, averageLength, options);
  return bodies.map((body, chunkIndex) => indexChunk(heading, body, chunkIndex, avg, options));
}

/**
 * The average chunk length BM25 normalises by: the tenant's corpus average, or for a tenant's first
 * document (no average yet) the document's own.
 */
export function lengthNorm(heading: readonly string[], bodies: readonly string[][], averageLength: number, options: { titleWeight?: number } = {}): number {
  if (averageLength > 0) return averageLength;
  const titleWeight = options.titleWeight ?? DEFAULT_TITLE_WEIGHT;
  const total = bodies.reduce((s, b) => s + b.length + titleWeight * heading.length, 0);
  return total / Math.max(bodies.length, 1);
}

/** One chunk's postings (see {@link indexChunks}); `averageLength` from {@link lengthNorm}. */
export function indexChunk(
  heading: readonly string[],
  body: readonly string[],
  chunkIndex: number,
  averageLength: number,
  options: { params?: Bm25Params; titleWeight?: number } = {},
): IndexedChunk {
  const params = options.params ?? DEFAULT_BM25;
  const titleWeight = options.titleWeight ?? DEFAULT_TITLE_WEIGHT;
  const length = body.length + titleWeight * heading.length;
  const tf = termFrequencies(heading, titleWeight, termFrequencies(body));
  const field = termFrequencies(heading.map(headingTerm).filter((t): t is string => t !== null));
  const postings = [...chunkPostings(tf, length, averageLength, params), ...chunkPostings(field, heading.length, AVERAGE_HEADING_LENGTH, params)];
  return { chunkIndex, terms: postings.map((p) => p.term), impacts: postings.map((p) => p.impact), length };
}
