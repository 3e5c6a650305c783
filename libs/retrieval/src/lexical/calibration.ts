import type { CompletenessHint, RelevanceLevel, RetrievalNormalizationConfig } from '../relevance.js';
import { ANSWERABILITY_FEATURE_NAMES, type AnswerabilityModel } from './answerability.js';

/**
 * Calibrated relevance (docs/retrieval.md "Grading"): the probability that a result is the right
 * answer, estimated by a logistic model over lexical and vector evidence, then mapped onto the
 * seed's 0..1 scale so that the tenant's thresholds keep their meaning — relevance >=
 * `highlyRelevantThreshold` (0.75) reads "highly relevant", < `referenceThreshold` (0.5) reads
 * "insufficient". Raw `similarity` (seed formula) is unchanged and is one of the inputs.
 * Pure: no Nest, no database.
 */

/** The evidence about one result. */
export interface RelevanceEvidence {
  /** Lexical score / best score reachable for this query (BM25 share of the query's IDF mass), 0..1. */
  lexicalShare: number;
  /** Seed similarity of the result's best chunk, 0..1 (0 when it has no vector in this space). */
  similarity: number;
  /** 1-based rank in the lexical list, null when absent. */
  lexicalRank: number | null;
  /** 1-based rank in the vector list, null when absent. */
  vectorRank: number | null;
  /** The query contains the document's title or one of its keywords (seed L0 exact hit). */
  exactHit: boolean;
  /** Lexical share of the best other result (how clearly this one stands out), 0..1. */
  runnerUpLexicalShare: number;
  /** IDF-weighted share of the query's terms that occur in the result's title and chunk, 0..1. */
  coverage: number;
  /** Best similarity among the other results, 0..1. */
  runnerUpSimilarity: number;
  /** IDF-weighted share of the query's terms that no document of the tenant contains, 0..1. */
  unknownShare: number;
  /** The result lacks the query's most specific term that the corpus knows. */
  missesRarestTerm: boolean;
  /**
   * Dice overlap of the question's and the result's title's surface words, stop words kept (`title-overlap.ts`),
   * 0..1; absent in evidence recorded before it existed (read as 0).
   */
  titleOverlap?: number;
}

export const FEATURE_NAMES = [
  'bias',
  'lexicalShare',
  'similarity',
  'lexicalTop',
  'vectorTop',
  'inverseLexicalRank',
  'inverseVectorRank',
  'exactHit',
  'lexicalMargin',
  'coverage',
  'coverageSquared',
  'similarityMargin',
  'coverageTimesSimilarity',
  'unknownShare',
  'missesRarestTerm',
  'titleOverlap',
] as const;

/** Ranking features of the first stored fits (through `missesRarestTerm`); `titleOverlap` came after them. */
export const FIRST_FEATURE_COUNT = 15;

export function features(e: RelevanceEvidence): number[] {
  const clamp = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
  return [
    1,
    clamp(e.lexicalShare),
    clamp(e.similarity),
    e.lexicalRank === 1 ? 1 : 0,
    e.vectorRank === 1 ? 1 : 0,
    e.lexicalRank ? 1 / e.lexicalRank : 0,
    e.vectorRank ? 1 / e.vectorRank : 0,
    e.exactHit ? 1 : 0,
    clamp(e.lexicalShare) - clamp(e.runnerUpLexicalShare),
    clamp(e.coverage),
    clamp(e.coverage) ** 2,
    clamp(e.similarity) - clamp(e.runnerUpSimilarity),
    clamp(e.coverage) * clamp(e.similarity),
    clamp(e.unknownShare),
    e.missesRarestTerm ? 1 : 0,
    clamp(e.titleOverlap ?? 0),
  ];
}

/** Probability cuts that land on the seed scale's thresholds. */
export interface CalibrationCuts {
  /** Probability that maps to `referenceThreshold` (below: INSUFFICIENT). */
  reference: number;
  /** Probability that maps to `highlyRelevantThreshold`. */
  highlyRelevant: number;
}

export interface Calibration {
  /** Logistic weights of the ranking model, in {@link FEATURE_NAMES} order. */
  weights: number[];
  /**
   * Cuts on the ranking model's probability. They grade when there is no answerability model; with one,
   * they only place the exact-identifier rule's promotion and cap in the order (docs/retrieval.md "Exact identifiers").
   */
  cuts: CalibrationCuts;
  /**
   * The answerability model (docs/retrieval.md "Answerability"): grades from the question–passage
   * agreement of the candidate, with cuts of its own. Absent in calibrations fitted before it: the
   * ranking model's probability grades, as before.
   */
  answerability?: AnswerabilityModel & { cuts: CalibrationCuts };
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** The ranking model's logit (log-odds that this is the right document). */
export function logitOfRight(calibration: Pick<Calibration, 'weights'>, e: RelevanceEvidence): number {
  const x = features(e);
  let z = 0;
  for (let i = 0; i < x.length; i++) z += (calibration.weights[i] ?? 0) * x[i];
  return z;
}

export function probabilityOfRight(calibration: Pick<Calibration, 'weights'>, e: RelevanceEvidence): number {
  return sigmoid(logitOfRight(calibration, e));
}

/** A logistic model's probability for a feature vector. */
export function logisticProbability(weights: readonly number[], x: readonly number[]): number {
  let z = 0;
  for (let i = 0; i < x.length; i++) z += (weights[i] ?? 0) * x[i];
  return sigmoid(z);
}

/**
 * Monotone piecewise-linear map of a probability onto the seed scale: [0, cuts.reference] →
 * [0, referenceThreshold], [cuts.reference, cuts.highlyRelevant] → [referenceThreshold,
 * highlyRelevantThreshold], [cuts.highlyRelevant, 1] → [highlyRelevantThreshold, 1].
 */
export function toSeedScale(
  p: number,
  cuts: CalibrationCuts,
  thresholds: Pick<RetrievalNormalizationConfig, 'referenceThreshold' | 'highlyRelevantThreshold'>,
): number {
  const lerp = (x: number, x0: number, x1: number, y0: number, y1: number) => (x1 <= x0 ? y1 : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0));
  const { referenceThreshold: r, highlyRelevantThreshold: h } = thresholds;
  const pr = Math.min(Math.max(cuts.reference, 0), 1);
  const ph = Math.min(Math.max(cuts.highlyRelevant, pr), 1);
  const x = Math.min(Math.max(Number.isFinite(p) ? p : 0, 0), 1);
  if (x < pr) return lerp(x, 0, pr, 0, r);
  if (x < ph) return lerp(x, pr, ph, r, h);
  return lerp(x, ph, 1, h, 1);
}

export interface CalibratedGrade {
  relevanceLevel: RelevanceLevel;
  completenessHint: CompletenessHint | null;
}

/**
 * The lookup's grade from its top result's calibrated relevance (null: no result):
 * PRECISE = highly relevant and an exact (L0) hit; HIGHLY_RELEVANT = relevance >= highly-relevant
 * threshold; REFERENCE/PARTIAL = >= reference threshold; else REFERENCE/INSUFFICIENT. An exact hit
 * alone no longer makes a result PRECISE (docs/spec deviation D-2).
 */
export function gradeCalibrated(
  top: { relevance: number; exactHit: boolean } | null,
  thresholds: Pick<RetrievalNormalizationConfig, 'referenceThreshold' | 'highlyRelevantThreshold'>,
): CalibratedGrade {
  if (!top || !Number.isFinite(top.relevance)) return { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' };
  if (top.relevance >= thresholds.highlyRelevantThreshold) return { relevanceLevel: top.exactHit ? 'PRECISE' : 'HIGHLY_RELEVANT', completenessHint: null };
  if (top.relevance >= thresholds.referenceThreshold) return { relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' };
  return { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' };
}

/** What a tenant's fit stores (`retrieval_settings.grading`). */
export interface StoredGrading {
  /** The embedder the calibration was fitted for: vector similarities mean something else in another space. */
  embedder: string;
  calibration: Calibration;
  fittedAt: string;
  [key: string]: unknown;
}

const isCuts = (cuts: unknown): cuts is CalibrationCuts => {
  const c = cuts as CalibrationCuts | null;
  return typeof c === 'object' && c !== null && [c.reference, c.highlyRelevant].every((x) => typeof x === 'number' && x >= 0 && x <= 1);
};

function isAnswerability(value: unknown): boolean {
  if (value === undefined) return true;
  const a = value as Calibration['answerability'] | null;
  return (
    typeof a === 'object' &&
    a !== null &&
    Array.isArray(a.weights) &&
    a.weights.length === ANSWERABILITY_FEATURE_NAMES.length &&
    a.weights.every((w) => typeof w === 'number' && Number.isFinite(w)) &&
    isCuts(a.cuts)
  );
}

function isCalibration(value: unknown): value is Calibration {
  const c = value as Calibration | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    Array.isArray(c.weights) &&
    c.weights.length >= FIRST_FEATURE_COUNT &&
    c.weights.length <= FEATURE_NAMES.length &&
    c.weights.every((w) => typeof w === 'number' && Number.isFinite(w)) &&
    isCuts(c.cuts) &&
    isAnswerability(c.answerability)
  );
}

/**
 * The stored calibration when it is well-formed and fitted for `embedder`, else null (the built-in one applies).
 * Features are only ever appended ({@link FIRST_FEATURE_COUNT}): a fit stored before a feature existed gets weight
 * 0 for it, so its logits are the ones it was fitted with.
 */
export function storedCalibration(grading: Record<string, unknown> | null | undefined, embedder: string): Calibration | null {
  if (!grading || grading.embedder !== embedder || !isCalibration(grading.calibration)) return null;
  const { weights } = grading.calibration;
  if (weights.length === FEATURE_NAMES.length) return grading.calibration;
  return { ...grading.calibration, weights: [...weights, ...new Array<number>(FEATURE_NAMES.length - weights.length).fill(0)] };
}
