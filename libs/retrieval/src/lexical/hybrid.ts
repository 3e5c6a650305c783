import { chunkContextText } from './chunk-context.js';
import { normalizeSimilarity, type RetrievalNormalizationConfig } from '../relevance.js';
import { bm25Idf, bm25MaxScore, DEFAULT_BM25 } from './bm25.js';
import {
  agreementEvidence,
  type AgreementEvidence,
  answerabilityFeatures,
  OVERLAP_CANDIDATES,
  rankContexts,
  readsOverlaps,
  titleCoverage,
} from './answerability.js';
import { type Calibration, logisticProbability, logitOfRight, type RelevanceEvidence, sigmoid, toSeedScale } from './calibration.js';
import { reciprocalRankFusion } from './fusion.js';
import { analyzeText, CJK_BIGRAM_PREFIX, CONTENT_WORDS, isStopWordTerm } from './text-analyzer.js';
import {
  applyIdentifierVerdict,
  documentFrequencyOf,
  extractIdentifiers,
  identifierPlace,
  identifierVerdict,
  isRare,
  type IdentifierVerdict,
  type QueryIdentifier,
} from './identifiers.js';
import type { FusionSettings } from './fusion-settings.js';
import { orderSectionsByLexicalEvidence } from './section-order.js';
import { surfaceWords, titleOverlap } from './title-overlap.js';

/** A title as the evidence reads it: its content terms and its surface words ({@link surfaceWords}). */
interface TitleReading {
  terms: readonly string[];
  words: ReadonlySet<string>;
}

/** Titles read by earlier lookups, at most {@link READ_TITLES_MAX} (then it starts over). */
const readTitles = new Map<string, TitleReading>();
const READ_TITLES_MAX = 20_000;

/**
 * A candidate's title read once per process: both readings are pure functions of the text, and analysing every
 * candidate's title again was 9 % of a lookup's time on the API thread (docs/hot-paths.md "Prepared statements").
 */
function readTitle(title: string): TitleReading {
  let reading = readTitles.get(title);
  if (!reading) {
    if (readTitles.size >= READ_TITLES_MAX) readTitles.clear();
    readTitles.set(title, (reading = { terms: Object.freeze(analyzeText(title, CONTENT_WORDS)), words: surfaceWords(title) }));
  }
  return reading;
}

/** The content terms of a candidate's title ({@link readTitle}). */
export function analyzedTitle(title: string): readonly string[] {
  return readTitle(title).terms;
}

/**
 * Hybrid candidate assembly (docs/retrieval.md "Hybrid search"): candidates from the vector list,
 * the BM25 list and the exact (L0) hits are fused by weighted RRF, described by their evidence,
 * scored by the calibrated model and ordered by it. A candidate is a document, or for a document made
 * from a file one section of it (docs/retrieval.md "Sections of files"). Pure: no Nest, no database.
 */
export interface HitChunk {
  documentId: string;
  filePath: string;
  title: string;
  domain: string;
  content: string;
  /** L2 distance of the chunk to the query; null when the document has no vector in this space. */
  distance: number | null;
  /** The uploaded file's name for documents made from files; null or absent for JSON documents. */
  fileName?: string | null;
  /** 1-based first and last page (PDF). */
  page?: number | null;
  pageEnd?: number | null;
  /** The chunk's heading path, outermost first. */
  section?: readonly string[] | null;
  /** The document's keywords where the index read them (the identifier rule reads them). */
  keywords?: readonly string[] | null;
}

/** Where a candidate's chunk came from (null where absent). */
export interface CandidateLocation {
  fileName: string | null;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
}

/**
 * The candidate a chunk counts for: its document; for a document made from a file (`fileName` set), the
 * document's section — so one manual may fill several results, one per matching section. JSON documents
 * keep one candidate per document, keyed by their id exactly as before.
 */
export function candidateKey(hit: Pick<HitChunk, 'documentId' | 'fileName' | 'section'>): string {
  if (hit.fileName === null || hit.fileName === undefined) return hit.documentId;
  return `${hit.documentId}\u0000${JSON.stringify(hit.section ?? [])}`;
}

/** A hit's location as a candidate reports it. */
export function locationOf(hit: HitChunk): CandidateLocation {
  const fileName = hit.fileName ?? null;
  return {
    fileName,
    page: hit.page ?? null,
    pageEnd: hit.pageEnd ?? hit.page ?? null,
    section: hit.section ? [...hit.section] : null,
  };
}

/**
 * A hit of a BM25 list: `score` orders the list; `contentScore` is its part from the question's content words in the
 * chunk's own postings (no stop word, no heading field; docs/retrieval.md "Lexical index"), the lexical share's
 * numerator — absent, the score is all content.
 */
export type LexicalListHit = HitChunk & { score: number; contentScore?: number };

function contentScore(hit: LexicalListHit | undefined): number {
  return hit ? (hit.contentScore ?? hit.score) : 0;
}

export interface HybridInput {
  /** The query as asked (its exact identifiers, docs/retrieval.md "Exact identifiers"); without it the rule is off. */
  query?: string;
  /** Chunk hits of the vector index, nearest first (several per document possible). */
  vector: readonly HitChunk[];
  /** Chunk hits of the lexical index with their BM25 scores, best first. */
  lexical: readonly LexicalListHit[];
  /** Exact title/keyword hits, each with its best chunk. */
  exact: readonly HitChunk[];
  /** Distinct analyzed query terms. */
  queryTerms: readonly string[];
  /**
   * Cross-language evidence (docs/retrieval.md "Cross-language retrieval"): the BM25 hits of the query's
   * translated terms, their IDF, and each query term's translations.
   */
  translation?: {
    lexical: readonly LexicalListHit[];
    idf: Readonly<Record<string, number>>;
    alternatives: Readonly<Record<string, readonly string[]>>;
  };
  /** IDF of the query terms the corpus knows; unknown terms count as never seen. */
  idf: Readonly<Record<string, number>>;
  chunkCount: number;
  fusion: FusionSettings;
  calibration: Calibration;
  normalization: RetrievalNormalizationConfig;
  /**
   * The vectors are the built-in embedder's hashed words: a file's sections are then ordered among themselves by
   * their lexical evidence ({@link orderSectionsByLexicalEvidence}); absent or false, by the ranking model.
   */
  hashedVectors?: boolean;
  /**
   * Compare the first candidates' passages for near-duplicates even when the calibration's answerability
   * model gives them no weight: a grade fit collects them ({@link readsOverlaps}).
   */
  collectOverlaps?: boolean;
}

export interface HybridCandidate extends CandidateLocation {
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
  /**
   * Calibrated probability that the question is answered by this candidate: the answerability model's
   * (docs/retrieval.md "Answerability"), or the ranking model's when the calibration has none.
   */
  probability: number;
  /** The ranking model's probability that this is the right document (the order of the candidates). */
  rankProbability: number;
  lexicalScore: number;
  /** Chunks of this candidate (document, or section of a file) the lexical index matched (docs/spec/evaluation.md §2's `matches`: more than one is "multiple references"). */
  matches: number;
  evidence: RelevanceEvidence;
  /** Question–passage agreement, the answerability model's evidence besides the ranking (docs/retrieval.md "Answerability"). */
  agreement: AgreementEvidence;
  /** What the exact-identifier rule did to this candidate (docs/retrieval.md "Exact identifiers"). */
  identifier: IdentifierVerdict;
}

/**
 * The exact (L0) hits among the candidates (docs/spec/retrieval.md §2): documents whose title or a keyword (>= 2 characters)
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
      out.set(c.documentId, {
        documentId: c.documentId,
        filePath: c.filePath,
        title: c.title,
        domain: c.domain,
        content: c.content,
        distance: c.distance,
        keywords: c.keywords,
        ...(c.fileName !== undefined ? { fileName: c.fileName, page: c.page, pageEnd: c.pageEnd, section: c.section } : {}),
      });
  }
  return [...out.values()];
}

export function assembleCandidates(input: HybridInput): HybridCandidate[] {
  const { maxL2Distance } = input.normalization;
  // A character bigram no document contains usually spans two words ("屏幕不亮" → "幕不"): noise, not
  // evidence that the question is about something the knowledge base lacks. Unknown words do count.
  // A query term and its translations are one term of the evidence: known when any of them is indexed,
  // present when any of them is in the candidate's text (docs/retrieval.md "Cross-language retrieval").
  const translated = input.translation?.lexical ?? [];
  const translatedIdf = input.translation?.idf ?? {};
  const knownAlternatives = (t: string) => (input.translation?.alternatives[t] ?? []).filter((a) => a in translatedIdf || a in input.idf);
  const known = (t: string) => t in input.idf || knownAlternatives(t).length > 0;
  const idfOf = (t: string) =>
    input.idf[t] ??
    (knownAlternatives(t).length ? Math.max(...knownAlternatives(t).map((a) => input.idf[a] ?? translatedIdf[a])) : bm25Idf(0, input.chunkCount));
  // The question's content words: its stop words and the heading field score in the BM25 lists (docs/retrieval.md
  // "Lexical index"), but the evidence reads what a passage says — `a` is a substring of nearly any passage — so a
  // lexical share is a hit's content score against the best one every content word could give.
  const queryTerms = input.queryTerms.filter((t) => (known(t) || !t.startsWith(CJK_BIGRAM_PREFIX)) && !isStopWordTerm(t));
  const maxScore = bm25MaxScore(
    queryTerms.map((t) => input.idf[t] ?? bm25Idf(0, input.chunkCount)),
    DEFAULT_BM25,
  );
  // The best a translated document can reach: every query term matched, by itself or by one of its
  // translations. Terms without a translation stay in the measure: a document that shares one translated
  // word of a question (`签证` → `visa`, a card brand in an invoice) covers that word, not the question.
  const translatedMaxScore = bm25MaxScore(queryTerms.map(idfOf), DEFAULT_BM25);
  const vectorBest = firstPerCandidate(input.vector);
  const lexicalBest = tiedRanks(firstPerCandidate(input.lexical));
  const translatedBest = tiedRanks(firstPerCandidate(translated));
  const matchedChunks = new Map<string, number>();
  for (const h of input.lexical) matchedChunks.set(candidateKey(h), (matchedChunks.get(candidateKey(h)) ?? 0) + 1);
  const translatedMatches = new Map<string, number>();
  for (const h of translated) translatedMatches.set(candidateKey(h), (translatedMatches.get(candidateKey(h)) ?? 0) + 1);
  // Exact (L0) hits are of a document (its title or keywords): every candidate of that document is one.
  const exactDocuments = new Set(input.exact.map((h) => h.documentId));
  const byKey = new Map<string, HitChunk>();
  for (const h of [...input.exact, ...input.lexical, ...translated, ...input.vector]) if (!byKey.has(candidateKey(h))) byKey.set(candidateKey(h), h);
  const lexicalShare = (key: string) =>
    Math.max(
      maxScore > 0 ? Math.min(1, contentScore(lexicalBest.get(key)?.hit) / maxScore) : 0,
      translatedMaxScore > 0 ? Math.min(1, contentScore(translatedBest.get(key)?.hit) / translatedMaxScore) : 0,
    );
  const exactOrder = [...input.exact].sort(
    (a, b) => lexicalShare(candidateKey(b)) - lexicalShare(candidateKey(a)) || (a.distance ?? Infinity) - (b.distance ?? Infinity),
  );

  const fused = reciprocalRankFusion(
    [
      { name: 'lexical', weight: input.fusion.lexicalWeight, ids: input.lexical.map(candidateKey) },
      { name: 'vector', weight: input.fusion.vectorWeight, ids: input.vector.map(candidateKey) },
      { name: 'exact', weight: input.fusion.exactWeight, ids: exactOrder.map(candidateKey) },
      { name: 'translated', weight: input.fusion.lexicalWeight, ids: translated.map(candidateKey) },
    ],
    input.fusion.rrfK,
  );
  const shares = fused.map((f) => lexicalShare(f.id));
  const queryMass = queryTerms.reduce((s, t) => s + idfOf(t), 0);
  const unknownShare = queryMass > 0 ? queryTerms.reduce((s, t) => s + (known(t) ? 0 : idfOf(t)), 0) / queryMass : 0;
  const knownTerms = queryTerms.filter(known);
  const rarest = knownTerms.length ? knownTerms.reduce((a, b) => (idfOf(b) > idfOf(a) ? b : a)) : null;
  const identifiers = rareIdentifiers(input.query ?? '', input.idf, input.chunkCount);
  const questionWords = surfaceWords(input.query ?? '');
  const chunks = fused.map((f) => {
    // The lexical evidence is the better of the query's own terms and their translations.
    const own = lexicalBest.get(f.id);
    const other = translatedBest.get(f.id);
    const best = own && (!other || own.rank <= other.rank) ? own : other;
    const lexicalRank = best?.rank ?? null;
    const vectorRank = vectorBest.get(f.id)?.rank ?? null;
    // The chunk shown is the one of the list that ranks the document better.
    const chunk = best && (vectorRank === null || best.rank < vectorRank) ? best.hit : (vectorBest.get(f.id)?.hit ?? byKey.get(f.id)!);
    return { lexicalRank, vectorRank, chunk, lexicalScore: Math.max(own?.hit.score ?? 0, other?.hit.score ?? 0) };
  });
  // A translated hit's distance is to the translated query's vector: the candidate is as near as the
  // nearer of the two phrasings of the question (docs/retrieval.md "Cross-language retrieval").
  const translatedDistance = (key: string) => translatedBest.get(key)?.hit.distance ?? null;
  const nearest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  const similarities = chunks.map(({ chunk }, i) =>
    normalizeSimilarity(
      nearest(chunk.distance ?? vectorBest.get(fused[i].id)?.hit.distance ?? null, translatedDistance(fused[i].id)) ?? maxL2Distance,
      maxL2Distance,
    ),
  );
  const scored = fused.map((f, i) => {
    const { lexicalRank, vectorRank, chunk, lexicalScore } = chunks[i];
    const distance = nearest(chunk.distance ?? vectorBest.get(f.id)?.hit.distance ?? null, translatedDistance(f.id)) ?? maxL2Distance;
    const similarity = similarities[i];
    const runnerUp = Math.max(0, ...shares.filter((_, k) => k !== i));
    // Substring containment of each (stemmed) term in the folded text: exact for Chinese words and
    // bigrams, a stem for English (`reset` in "resetting"); far cheaper than analyzing every candidate. The
    // section path counts, as it is indexed with the chunk (docs/retrieval.md "Chunk context").
    // Keywords too: they are indexed with every chunk of their document (docs/retrieval.md "Lexical index").
    const keywords = (chunk.keywords ?? byKey.get(f.id)?.keywords ?? []).join('\n');
    const text = `${chunk.title}\n${keywords}\n${chunkContextText(chunk.content, chunk.section)}`.normalize('NFKC').toLowerCase();
    const contains = (t: string) => text.includes(t.startsWith(CJK_BIGRAM_PREFIX) ? t.slice(CJK_BIGRAM_PREFIX.length) : t);
    const present = (t: string) => contains(t) || knownAlternatives(t).some(contains);
    const presence = queryTerms.map(present);
    const coverage = queryMass > 0 ? queryTerms.reduce((s, t, k) => s + (presence[k] ? idfOf(t) : 0), 0) / queryMass : 0;
    const evidence: RelevanceEvidence = {
      coverage,
      unknownShare,
      missesRarestTerm: rarest !== null && !present(rarest),
      runnerUpSimilarity: Math.max(0, ...similarities.filter((_, k) => k !== i)),
      lexicalShare: shares[i],
      similarity: vectorBest.has(f.id) || chunk.distance !== null || translatedDistance(f.id) !== null ? similarity : 0,
      lexicalRank,
      vectorRank,
      exactHit: exactDocuments.has(chunk.documentId),
      runnerUpLexicalShare: runnerUp,
      titleOverlap: titleOverlap(questionWords, readTitle(chunk.title).words),
    };
    // Exact identifiers (docs/retrieval.md "Exact identifiers"): the rest of the question is what the
    // candidate's own identifiers leave, so a document carrying one of two codes does not cover both.
    let verdict: IdentifierVerdict = 'none';
    if (identifiers.length) {
      const fields = { title: chunk.title, keywords: chunk.keywords ?? byKey.get(f.id)?.keywords, section: chunk.section, content: chunk.content };
      const places = identifiers.map(({ id }) => identifierPlace(fields, id));
      const carried = new Set(identifiers.flatMap(({ terms }, k) => (places[k] === 'none' ? [] : terms)));
      const rest = queryTerms.filter((t) => !carried.has(t));
      const restMass = rest.reduce((s, t) => s + idfOf(t), 0);
      const restCoverage = restMass > 0 ? rest.reduce((s, t) => s + (present(t) ? idfOf(t) : 0), 0) / restMass : 0;
      verdict = identifierVerdict({ places, restCoverage, restHasTerms: restMass > 0 });
    }
    const logit = logitOfRight(input.calibration, evidence);
    const rankProbability = applyIdentifierVerdict(sigmoid(logit), verdict, input.calibration.cuts.highlyRelevant);
    return { f, chunk, distance, similarity, lexicalRank, vectorRank, lexicalScore, evidence, verdict, logit, rankProbability, presence, text };
  });
  // Answerability (docs/retrieval.md "Answerability"): how the question and each passage agree, read
  // against the other candidates (rare-term coverage, margins, agreement of the lists, question type).
  const questionTerms = new Set([...input.queryTerms, ...input.queryTerms.flatMap((t) => input.translation?.alternatives[t] ?? [])]);
  const compareTexts = input.collectOverlaps === true || readsOverlaps(input.calibration.answerability);
  const agreement = agreementEvidence({
    query: input.query ?? '',
    idf: queryTerms.map(idfOf),
    known: queryTerms.map(known),
    candidates: scored.map((c, i) => ({
      documentId: c.chunk.documentId,
      present: c.presence,
      coverage: c.evidence.coverage,
      lexicalRank: c.lexicalRank,
      vectorRank: c.vectorRank,
      passage: c.text,
      titleCoverage: titleCoverage(analyzedTitle(c.chunk.title), questionTerms),
      // Compared in fused order (independent of the calibration, so a fit reads what a lookup reads).
      terms: compareTexts && i < OVERLAP_CANDIDATES ? new Set(analyzeText(c.text, CONTENT_WORDS)) : null,
    })),
  });
  const answerability = input.calibration.answerability;
  const contexts = rankContexts(scored.map((c, i) => ({ logit: c.logit, documentId: c.chunk.documentId, overlaps: agreement[i].overlaps })));
  const candidates = scored.map((c, i): HybridCandidate => {
    const gradeCuts = answerability?.cuts ?? input.calibration.cuts;
    const probability = answerability
      ? applyIdentifierVerdict(
          logisticProbability(answerability.weights, answerabilityFeatures(contexts[i], c.evidence, agreement[i])),
          c.verdict,
          gradeCuts.highlyRelevant,
        )
      : c.rankProbability;
    return {
      documentId: c.chunk.documentId,
      filePath: c.chunk.filePath,
      title: c.chunk.title,
      domain: c.chunk.domain,
      content: c.chunk.content,
      distance: c.distance,
      similarity: c.similarity,
      // A rare identifier in its title, keywords or section is an exact hit too.
      source: exactDocuments.has(c.chunk.documentId) || c.verdict === 'promote' ? 'L0' : 'L1',
      relevance: toSeedScale(probability, gradeCuts, input.normalization),
      probability,
      rankProbability: c.rankProbability,
      lexicalScore: c.lexicalScore,
      matches: matchedChunks.get(c.f.id) ?? translatedMatches.get(c.f.id) ?? 0,
      evidence: c.evidence,
      agreement: agreement[i],
      identifier: c.verdict,
      ...locationOf(c.chunk),
    };
  });
  // Stable: equal probabilities keep the fused order.
  const byModel = candidates
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.rankProbability - a.c.rankProbability || a.i - b.i)
    .map(({ c }) => c);
  // In the hashing space a file's sections follow their lexical evidence (docs/retrieval.md "Sections of files").
  const sectionsByLexicalEvidence = input.hashedVectors === true;
  const ordered = sectionsByLexicalEvidence ? orderSectionsByLexicalEvidence(byModel) : byModel;
  // The answerability model reads each candidate against the others (margins), and sections may be ordered by
  // their lexical evidence, so a lower-ranked one could read higher than one above it: a result is never
  // graded above a result ranked before it.
  if (answerability || sectionsByLexicalEvidence)
    for (let i = 1; i < ordered.length; i++)
      if (ordered[i].probability > ordered[i - 1].probability)
        ordered[i] = { ...ordered[i], probability: ordered[i - 1].probability, relevance: ordered[i - 1].relevance };
  return ordered;
}

/**
 * The query's identifiers that are rare in the tenant's lexical index, with their index terms, rarity
 * being the smallest document frequency of their indexed terms. Inside Chinese text jieba splits some
 * codes (`40E减速机` → `40`, `e`), so the terms are read both ways and the indexed ones count; whether a
 * candidate carries the identifier itself is checked on its fields ({@link identifierPlace}).
 */
function rareIdentifiers(query: string, idf: Readonly<Record<string, number>>, chunkCount: number): { id: QueryIdentifier; terms: string[] }[] {
  const out: { id: QueryIdentifier; terms: string[] }[] = [];
  for (const id of extractIdentifiers(query)) {
    const latin = (t: string) => !/[\u3400-\u9fff]/u.test(t) && !t.startsWith(CJK_BIGRAM_PREFIX);
    const terms = [...new Set([...analyzeText(id.text), ...analyzeText(`${id.text}中`).filter(latin)])].filter((t) => t in idf);
    if (!terms.length) continue;
    const df = Math.min(...terms.map((t) => documentFrequencyOf(idf[t], chunkCount)));
    if (isRare(df, chunkCount)) out.push({ id, terms });
  }
  return out;
}

/**
 * Lexical ranks with ties shared (1, 1, 3): the index lists equal BM25 scores in file-path order
 * (docs/retrieval.md "Hybrid search"), which says nothing about the question, so equal evidence gets an
 * equal rank rather than a better one for the earlier path.
 */
function tiedRanks<T extends HitChunk & { score: number }>(best: Map<string, { hit: T; rank: number }>): Map<string, { hit: T; rank: number }> {
  const scores = [...best.values()].map((b) => b.hit.score);
  const tie = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b), 1);
  for (const b of best.values()) b.rank = 1 + scores.filter((s) => s > b.hit.score && !tie(s, b.hit.score)).length;
  return best;
}

/** The first (best) hit of each candidate with the candidate's rank in the list. */
function firstPerCandidate<T extends HitChunk>(hits: readonly T[]): Map<string, { hit: T; rank: number }> {
  const out = new Map<string, { hit: T; rank: number }>();
  for (const hit of hits) {
    const key = candidateKey(hit);
    if (!out.has(key)) out.set(key, { hit, rank: out.size + 1 });
  }
  return out;
}
