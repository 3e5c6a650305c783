import { normalizeSimilarity, type RetrievalNormalizationConfig } from '../relevance.js';
import { bm25Idf, bm25MaxScore, DEFAULT_BM25 } from './bm25.js';
import { type Calibration, probabilityOfRight, type RelevanceEvidence, toSeedScale } from './calibration.js';
import { reciprocalRankFusion } from './fusion.js';
import { CJK_BIGRAM_PREFIX } from './text-analyzer.js';
import type { FusionSettings } from './fusion-settings.js';

/**
 * Hybrid candidate assembly (docs/retrieval.md "Hybrid search"): documents from the vector list,
 * the BM25 list and the exact (L0) hits are fused by weighted RRF, described by their evidence,
 * scored by the calibrated model and ordered by it. Pure: no Nest, no database.
 */
export interface HitChunk {
  documentId: string;
  filePath: string;
  title: string;
  domain: string;
  content: string;
  /** L2 distance of the chunk to the query; null when the document has no vector in this space. */
  distance: number | null;
}

export interface HybridInput {
  /** Chunk hits of the vector index, nearest first (several per document possible). */
  vector: readonly HitChunk[];
  /** Chunk hits of the lexical index with their BM25 scores, best first. */
  lexical: readonly (HitChunk & { score: number })[];
  /** Exact title/keyword hits, each with its best chunk. */
  exact: readonly HitChunk[];
  /** Distinct analyzed query terms. */
  queryTerms: readonly string[];
  /** IDF of the query terms the corpus knows; unknown terms count as never seen. */
  idf: Readonly<Record<string, number>>;
  chunkCount: number;
  fusion: FusionSettings;
  calibration: Calibration;
  normalization: RetrievalNormalizationConfig;
}

export interface HybridCandidate {
  documentId: string;
  filePath: string;
  title: string;
  domain: string;
  content: string;
  distance: number;
  similarity: number;
  /** `L0` for exact title/keyword hits (docs/spec/retrieval.md), else `L1`. */
  source: 'L0' | 'L1';
  /** Calibrated relevance on the seed scale, 0..1. */
  relevance: number;
  /** Calibrated probability that this is the right document. */
  probability: number;
  lexicalScore: number;
  /** Chunks of this document the lexical index matched (docs/spec/evaluation.md §2's `matches`: more than one is "multiple references"). */
  matches: number;
  evidence: RelevanceEvidence;
}

/**
 * Seed 002's L0 hits among the candidates: documents whose title or a keyword (>= 2 characters)
 * occurs in the query, case-insensitively, each with its first (best) chunk. Checked on the lexical
 * and vector candidates rather than on every document of the tenant (a scan of all titles and
 * keywords cost ~90 ms at 10,000 documents): a document whose title or keyword is in the query
 * shares those terms with it, and they count twice in its postings (docs/retrieval.md "Hybrid search").
 */
export function exactHits(query: string, candidates: readonly (HitChunk & { keywords: readonly string[] })[]): HitChunk[] {
  const q = query.toLowerCase();
  const contains = (phrase: string) => phrase.length >= 2 && q.includes(phrase.toLowerCase());
  const out = new Map<string, HitChunk>();
  for (const c of candidates) {
    if (out.has(c.documentId)) continue;
    if (contains(c.title) || c.keywords.some(contains))
      out.set(c.documentId, { documentId: c.documentId, filePath: c.filePath, title: c.title, domain: c.domain, content: c.content, distance: c.distance });
  }
  return [...out.values()];
}

export function assembleCandidates(input: HybridInput): HybridCandidate[] {
  const { maxL2Distance } = input.normalization;
  // A character bigram no document contains usually spans two words ("屏幕不亮" → "幕不"): noise, not
  // evidence that the question is about something the knowledge base lacks. Unknown words do count.
  const queryTerms = input.queryTerms.filter((t) => t in input.idf || !t.startsWith(CJK_BIGRAM_PREFIX));
  const maxScore = bm25MaxScore(
    queryTerms.map((t) => input.idf[t] ?? bm25Idf(0, input.chunkCount)),
    DEFAULT_BM25,
  );
  const vectorBest = firstPerDocument(input.vector);
  const lexicalBest = firstPerDocument(input.lexical);
  const matchedChunks = new Map<string, number>();
  for (const h of input.lexical) matchedChunks.set(h.documentId, (matchedChunks.get(h.documentId) ?? 0) + 1);
  const exactIds = new Set(input.exact.map((h) => h.documentId));
  const byId = new Map<string, HitChunk>();
  for (const h of [...input.exact, ...input.lexical, ...input.vector]) if (!byId.has(h.documentId)) byId.set(h.documentId, h);
  const lexicalShare = (id: string) => (maxScore > 0 ? Math.min(1, (lexicalBest.get(id)?.hit.score ?? 0) / maxScore) : 0);
  const exactOrder = [...input.exact].sort(
    (a, b) => lexicalShare(b.documentId) - lexicalShare(a.documentId) || (a.distance ?? Infinity) - (b.distance ?? Infinity),
  );

  const fused = reciprocalRankFusion(
    [
      { name: 'lexical', weight: input.fusion.lexicalWeight, ids: input.lexical.map((h) => h.documentId) },
      { name: 'vector', weight: input.fusion.vectorWeight, ids: input.vector.map((h) => h.documentId) },
      { name: 'exact', weight: input.fusion.exactWeight, ids: exactOrder.map((h) => h.documentId) },
    ],
    input.fusion.rrfK,
  );
  const shares = fused.map((f) => lexicalShare(f.id));
  const idfOf = (t: string) => input.idf[t] ?? bm25Idf(0, input.chunkCount);
  const queryMass = queryTerms.reduce((s, t) => s + idfOf(t), 0);
  const unknownShare = queryMass > 0 ? queryTerms.reduce((s, t) => s + (t in input.idf ? 0 : idfOf(t)), 0) / queryMass : 0;
  const known = queryTerms.filter((t) => t in input.idf);
  const rarest = known.length ? known.reduce((a, b) => (input.idf[b] > input.idf[a] ? b : a)) : null;
  const chunks = fused.map((f) => {
    const lexicalRank = lexicalBest.get(f.id)?.rank ?? null;
    const vectorRank = vectorBest.get(f.id)?.rank ?? null;
    // The chunk shown is the one of the list that ranks the document better.
    const chunk =
      lexicalRank !== null && (vectorRank === null || lexicalRank < vectorRank) ? lexicalBest.get(f.id)!.hit : (vectorBest.get(f.id)?.hit ?? byId.get(f.id)!);
    return { lexicalRank, vectorRank, chunk };
  });
  const similarities = chunks.map(({ chunk }, i) =>
    normalizeSimilarity(chunk.distance ?? vectorBest.get(fused[i].id)?.hit.distance ?? maxL2Distance, maxL2Distance),
  );
  const candidates = fused.map((f, i): HybridCandidate => {
    const { lexicalRank, vectorRank, chunk } = chunks[i];
    const distance = chunk.distance ?? vectorBest.get(f.id)?.hit.distance ?? maxL2Distance;
    const similarity = similarities[i];
    const runnerUp = Math.max(0, ...shares.filter((_, k) => k !== i));
    // Substring containment of each (stemmed) term in the folded text: exact for Chinese words and
    // bigrams, a stem for English (`reset` in "resetting"); far cheaper than analyzing every candidate.
    const text = `${chunk.title}\n${chunk.content}`.normalize('NFKC').toLowerCase();
    const present = (t: string) => text.includes(t.startsWith(CJK_BIGRAM_PREFIX) ? t.slice(CJK_BIGRAM_PREFIX.length) : t);
    const coverage = queryMass > 0 ? queryTerms.reduce((s, t) => s + (present(t) ? idfOf(t) : 0), 0) / queryMass : 0;
    const evidence: RelevanceEvidence = {
      coverage,
      unknownShare,
      missesRarestTerm: rarest !== null && !present(rarest),
      runnerUpSimilarity: Math.max(0, ...similarities.filter((_, k) => k !== i)),
      lexicalShare: shares[i],
      similarity: vectorBest.has(f.id) || chunk.distance !== null ? similarity : 0,
      lexicalRank,
      vectorRank,
      exactHit: exactIds.has(f.id),
      runnerUpLexicalShare: runnerUp,
    };
    const probability = probabilityOfRight(input.calibration, evidence);
    return {
      documentId: f.id,
      filePath: chunk.filePath,
      title: chunk.title,
      domain: chunk.domain,
      content: chunk.content,
      distance,
      similarity,
      source: exactIds.has(f.id) ? 'L0' : 'L1',
      relevance: toSeedScale(probability, input.calibration.cuts, input.normalization),
      probability,
      lexicalScore: lexicalBest.get(f.id)?.hit.score ?? 0,
      matches: matchedChunks.get(f.id) ?? 0,
      evidence,
    };
  });
  // Stable: equal probabilities keep the fused order.
  return candidates
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.probability - a.c.probability || a.i - b.i)
    .map(({ c }) => c);
}

function firstPerDocument<T extends { documentId: string }>(hits: readonly T[]): Map<string, { hit: T; rank: number }> {
  const out = new Map<string, { hit: T; rank: number }>();
  for (const hit of hits) if (!out.has(hit.documentId)) out.set(hit.documentId, { hit, rank: out.size + 1 });
  return out;
}
