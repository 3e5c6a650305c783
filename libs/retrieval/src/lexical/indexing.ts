import { analyzeText, termFrequencies } from './text-analyzer.js';
import { type Bm25Params, chunkPostings, DEFAULT_BM25 } from './bm25.js';

/**
 * What the lexical index stores for a document's chunks (docs/retrieval.md "Lexical index"): the
 * title and keywords belong to every chunk (as they are embedded with every chunk) and count
 * `titleWeight` times a body occurrence. Pure: no Nest, no database.
 */
export const DEFAULT_TITLE_WEIGHT = 2;

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
  const params = options.params ?? DEFAULT_BM25;
  const titleWeight = options.titleWeight ?? DEFAULT_TITLE_WEIGHT;
  const heading = [...analyzeText(title), ...analyzeText(keywords.join(' \n '))];
  const bodies = chunks.map((c) => analyzeText(c));
  const lengths = bodies.map((b) => b.length + titleWeight * heading.length);
  // The first document of a tenant has no corpus average yet: its own average stands in.
  const avg = averageLength > 0 ? averageLength : lengths.reduce((s, l) => s + l, 0) / Math.max(lengths.length, 1);
  return bodies.map((body, chunkIndex) => {
    const tf = termFrequencies(heading, titleWeight, termFrequencies(body));
    const postings = chunkPostings(tf, lengths[chunkIndex], avg, params);
    return { chunkIndex, terms: postings.map((p) => p.term), impacts: postings.map((p) => p.impact), length: lengths[chunkIndex] };
  });
}
