import { type AgreementEvidence, ANSWERABILITY_FEATURE_NAMES, answerabilityFeatures, rankContexts } from './answerability.js';
import {
  type Calibration,
  type CalibrationCuts,
  features,
  FEATURE_NAMES,
  logisticProbability,
  logitOfRight,
  type RelevanceEvidence,
  sigmoid,
} from './calibration.js';

/**
 * Fitting a {@link Calibration} from labelled lookups (docs/retrieval.md "Fitting the grade").
 * A sample is the evidence about one lookup's top result and whether it was the right document
 * (false also when the right document is not in the knowledge base at all).
 * Pure: no Nest, no database.
 */
export interface LabelledCandidate {
  evidence: RelevanceEvidence;
  /** This candidate is the document the question is about. */
  right: boolean;
  /** Its document (margins are over other documents); defaults to a document of its own. */
  documentId?: string;
  /** Question–passage agreement (docs/retrieval.md "Answerability"); without it no answerability model is fitted. */
  agreement?: AgreementEvidence;
}

/** One labelled lookup: its candidates in retrieval order (empty when nothing was found). */
export interface LabelledLookup {
  candidates: readonly LabelledCandidate[];
  /** How much this lookup counts in the fit (default 1): balances sets of different sizes. */
  weight?: number;
}

/** Candidates per lookup the model learns from (the ones a lookup can return). */
export const CANDIDATES_PER_LOOKUP = 10;

/**
 * What a fit aims for (docs/retrieval.md "Grading"). "Answered" means graded PRECISE or
 * HIGHLY_RELEVANT (the chat answers it without a caveat); PARTIAL is the middle band (answered with a
 * caveat only when the retrieval confidence allows it), INSUFFICIENT the "not found" exit.
 */
export interface GradeTargets {
  /** At most this share of right top results may be graded INSUFFICIENT (sets the reference cut). */
  maxRightInsufficient: number;
  /** At most this share of wrong top results may be graded PRECISE/HIGHLY_RELEVANT (sets the highly-relevant cut). */
  maxWrongAnswered: number;
}

export const DEFAULT_GRADE_TARGETS: Readonly<GradeTargets> = Object.freeze({ maxRightInsufficient: 0.15, maxWrongAnswered: 0.1 });

/** L2-regularised logistic regression by Newton's method (IRLS); a handful of features, so exact. */
export function fitLogistic(x: readonly number[][], y: readonly number[], l2 = 1e-2, iterations = 50, sampleWeights?: readonly number[]): number[] {
  const d = x[0]?.length ?? FEATURE_NAMES.length;
  const w = new Array<number>(d).fill(0);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let i = 0; i < x.length; i++) {
      let z = 0;
      for (let j = 0; j < d; j++) z += w[j] * x[i][j];
      const p = sigmoid(z);
      const c = sampleWeights?.[i] ?? 1;
      const s = c * Math.max(p * (1 - p), 1e-9);
      for (let j = 0; j < d; j++) {
        grad[j] += c * (p - y[i]) * x[i][j];
        for (let k = j; k < d; k++) hess[j][k] += s * x[i][j] * x[i][k];
      }
    }
    for (let j = 0; j < d; j++) {
      const reg = j === 0 ? 0 : l2 * x.length;
      grad[j] += reg * w[j];
      hess[j][j] += reg + 1e-9;
      for (let k = 0; k < j; k++) hess[j][k] = hess[k][j];
    }
    const step = solve(hess, grad);
    let change = 0;
    for (let j = 0; j < d; j++) {
      w[j] -= step[j];
      change = Math.max(change, Math.abs(step[j]));
    }
    if (change < 1e-8) break;
  }
  return w;
}

/** Gaussian elimination with partial pivoting (small dense systems). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    if (Math.abs(m[c][c]) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => (Math.abs(row[i]) < 1e-12 ? 0 : row[n] / row[i]));
}

/**
 * The smallest probability cut at which at most `maxShare` of the wrong samples score at or above it
 * (ties counted against the cut). With no wrong samples, the cut is 0.5.
 */
export function cutForWrongShare(wrongProbabilities: readonly number[], maxShare: number): number {
  if (!wrongProbabilities.length) return 0.5;
  const sorted = [...wrongProbabilities].sort((a, b) => b - a);
  const allowed = Math.floor(maxShare * sorted.length);
  if (allowed >= sorted.length) return 0;
  // Strictly above the (allowed+1)-th highest wrong probability.
  const bound = sorted[allowed];
  return Math.min(1, bound + 1e-9);
}

export interface GradingMetrics {
  lookups: number;
  /** Lookups whose right document is in the knowledge base. */
  answerable: number;
  hitAt1: number;
  /** Of lookups whose top result is right: share graded INSUFFICIENT (target <= 0.15). */
  rightInsufficient: number;
  /** Of lookups whose top result is wrong (including unanswerable ones): share graded PRECISE/HIGHLY_RELEVANT (target <= 0.10). */
  wrongAnswered: number;
  /** Of lookups whose top result is wrong: share not graded INSUFFICIENT (PARTIAL included). */
  wrongNotInsufficient: number;
  /** Of lookups whose right document is not in the knowledge base: share graded INSUFFICIENT (target >= 0.70). */
  absentInsufficient: number;
}

function score(weights: readonly number[], e: RelevanceEvidence): number {
  const x = features(e);
  return sigmoid(x.reduce((z, v, j) => z + v * (weights[j] ?? 0), 0));
}

/** Candidates re-ranked by calibrated probability (ties keep retrieval order). */
export function rerank<T extends { evidence: RelevanceEvidence }>(
  calibration: Pick<Calibration, 'weights'>,
  candidates: readonly T[],
): (T & { probability: number })[] {
  return candidates
    .map((c, i) => ({ ...c, probability: score(calibration.weights, c.evidence), i }))
    .sort((a, b) => b.probability - a.probability || a.i - b.i)
    .map(({ i: _i, ...rest }) => rest as unknown as T & { probability: number });
}

/** One lookup's top candidate under `calibration`: whether it is right, and the probability its grade is read from. */
export interface TopGrade {
  right: boolean;
  answerable: boolean;
  /** Probability of the top candidate (answerability model when the calibration has one), null when nothing was found. */
  probability: number | null;
}

/**
 * The grade probability of each candidate of a lookup, in `rerank` order: the answerability model's
 * (over the candidates' agreement evidence and their ranking logits) when the calibration has one and
 * the candidates carry agreement evidence, else the ranking model's.
 */
export function gradeProbabilities<T extends LabelledCandidate>(calibration: Calibration, candidates: readonly T[]): { candidate: T; probability: number }[] {
  const ranked = rerank(calibration, candidates);
  const model = calibration.answerability;
  if (!model || ranked.some((c) => !c.agreement)) return ranked.map((c) => ({ candidate: c, probability: c.probability }));
  const contexts = rankContexts(
    ranked.map((c, i) => ({ logit: logitOfRight(calibration, c.evidence), documentId: c.documentId ?? `#${i}`, overlaps: c.agreement?.overlaps })),
  );
  return ranked.map((c, i) => ({
    candidate: c,
    probability: logisticProbability(model.weights, answerabilityFeatures(contexts[i], c.evidence, c.agreement as AgreementEvidence)),
  }));
}

/** The top candidate of each lookup under `calibration` with its grade probability. */
export function topGrades(lookups: readonly (LabelledLookup & { answerable: boolean })[], calibration: Calibration): TopGrade[] {
  return lookups.map((l) => {
    const top = gradeProbabilities(calibration, l.candidates.slice(0, CANDIDATES_PER_LOOKUP))[0];
    return { right: top?.candidate.right ?? false, answerable: l.answerable, probability: top ? top.probability : null };
  });
}

/** The cuts grades are read with: the answerability model's when there is one. */
export function gradeCuts(calibration: Calibration): CalibrationCuts {
  return calibration.answerability?.cuts ?? calibration.cuts;
}

/** Grading rates of top grades at the given cuts. */
export function gradingMetricsAt(tops: readonly TopGrade[], cuts: CalibrationCuts): GradingMetrics {
  let right = 0;
  let rightInsufficient = 0;
  let wrong = 0;
  let wrongAnswered = 0;
  let wrongNotInsufficient = 0;
  let absent = 0;
  let absentInsufficient = 0;
  for (const t of tops) {
    const sufficient = t.probability !== null && t.probability >= cuts.reference;
    const strong = t.probability !== null && t.probability >= cuts.highlyRelevant;
    if (t.right) {
      right++;
      if (!sufficient) rightInsufficient++;
    } else {
      wrong++;
      if (strong) wrongAnswered++;
      if (sufficient) wrongNotInsufficient++;
    }
    if (!t.answerable) {
      absent++;
      if (!sufficient) absentInsufficient++;
    }
  }
  const share = (a: number, b: number) => (b ? a / b : 0);
  return {
    lookups: tops.length,
    answerable: tops.length - absent,
    hitAt1: share(right, tops.length - absent),
    rightInsufficient: share(rightInsufficient, right),
    wrongAnswered: share(wrongAnswered, wrong),
    wrongNotInsufficient: share(wrongNotInsufficient, wrong),
    absentInsufficient: share(absentInsufficient, absent),
  };
}

/** Grading quality of `calibration` on labelled lookups (answerable = any candidate is right). */
export function evaluateGrading(lookups: readonly (LabelledLookup & { answerable: boolean })[], calibration: Calibration): GradingMetrics {
  return gradingMetricsAt(topGrades(lookups, calibration), gradeCuts(calibration));
}

/**
 * The largest probability cut below which at most `maxShare` of the right samples fall. With no
 * right samples, the cut is 0.5.
 */
export function cutForRightShare(rightProbabilities: readonly number[], maxShare: number): number {
  if (!rightProbabilities.length) return 0.5;
  const sorted = [...rightProbabilities].sort((a, b) => a - b);
  const allowed = Math.floor(maxShare * sorted.length);
  if (allowed >= sorted.length) return 1;
  return sorted[allowed];
}

export interface FitReport {
  calibration: Calibration;
  /** Candidates learned from. */
  samples: number;
  right: number;
  wrong: number;
}

export interface FitOptions {
  /** Fit the answerability model too when every candidate carries agreement evidence (default true). */
  answerability?: boolean;
  /** Keep this ranking model (weights and cuts) and fit only the answerability model over it (the built-in fit: the order stays as it was). */
  ranking?: Pick<Calibration, 'weights' | 'cuts'>;
  /** Answerability features left out (their weight stays 0). */
  exclude?: readonly (typeof ANSWERABILITY_FEATURE_NAMES)[number][];
}

/**
 * Learns which candidates are right (pointwise logistic model over all candidates of all lookups),
 * then, when the candidates carry agreement evidence, whether each lookup's top candidate answers it
 * (the answerability model, on the top candidates only: right vs wrong or unanswerable; docs/retrieval.md
 * "Answerability"). The cuts are placed on the probabilities grades are read from: the highly-relevant
 * cut so that at most `maxWrongAnswered` of the wrong tops reach it, the reference cut (never above it) so
 * that at most `maxRightInsufficient` of the right ones fall below it.
 */
export function fitCalibration(lookups: readonly LabelledLookup[], targets: GradeTargets = DEFAULT_GRADE_TARGETS, options: FitOptions = {}): FitReport {
  const x: number[][] = [];
  const y: number[] = [];
  const sampleWeights: number[] = [];
  for (const l of lookups) {
    for (const c of l.candidates.slice(0, CANDIDATES_PER_LOOKUP)) {
      x.push(features(c.evidence));
      y.push(c.right ? 1 : 0);
      sampleWeights.push(l.weight ?? 1);
    }
  }
  const weights = options.ranking
    ? [...options.ranking.weights]
    : x.length
      ? fitLogistic(x, y, 1e-2, 50, sampleWeights)
      : new Array<number>(FEATURE_NAMES.length).fill(0);
  const placeCuts = (tops: readonly { right: boolean; probability: number }[]): CalibrationCuts => {
    const highlyRelevant = cutForWrongShare(
      tops.filter((t) => !t.right).map((t) => t.probability),
      targets.maxWrongAnswered,
    );
    return {
      reference: Math.min(
        highlyRelevant,
        cutForRightShare(
          tops.filter((t) => t.right).map((t) => t.probability),
          targets.maxRightInsufficient,
        ),
      ),
      highlyRelevant,
    };
  };
  const rankTops = lookups.flatMap((l) => {
    const top = rerank({ weights }, l.candidates.slice(0, CANDIDATES_PER_LOOKUP))[0];
    return top ? [{ right: top.right, probability: top.probability }] : [];
  });
  const calibration: Calibration = { weights, cuts: options.ranking ? { ...options.ranking.cuts } : placeCuts(rankTops) };
  const withAgreement = lookups.length > 0 && lookups.every((l) => l.candidates.every((c) => c.agreement));
  if ((options.answerability ?? true) && withAgreement) {
    const ax: number[][] = [];
    const ay: number[] = [];
    const aw: number[] = [];
    for (const l of lookups) {
      const ranked = rerank({ weights }, l.candidates.slice(0, CANDIDATES_PER_LOOKUP));
      if (!ranked.length) continue;
      const contexts = rankContexts(
        ranked.map((c, i) => ({ logit: logitOfRight({ weights }, c.evidence), documentId: c.documentId ?? `#${i}`, overlaps: c.agreement?.overlaps })),
      );
      const row = answerabilityFeatures(contexts[0], ranked[0].evidence, ranked[0].agreement as AgreementEvidence);
      for (const name of options.exclude ?? []) row[ANSWERABILITY_FEATURE_NAMES.indexOf(name)] = 0;
      ax.push(row);
      ay.push(ranked[0].right ? 1 : 0);
      aw.push(l.weight ?? 1);
    }
    // One sample per lookup, far fewer than the ranking model's: the ridge is at least 0.3 in all (0.3/n per
    // sample), so a tenant's 20-question fit stays tame while a few hundred questions speak for themselves.
    const aWeights = ax.length
      ? fitLogistic(ax, ay, Math.max(1e-3, 0.3 / Math.max(1, ax.length)), 50, aw)
      : new Array<number>(ANSWERABILITY_FEATURE_NAMES.length).fill(0);
    const tops = ax.map((row, i) => ({ right: ay[i] === 1, probability: logisticProbability(aWeights, row) }));
    calibration.answerability = { weights: aWeights, cuts: placeCuts(tops) };
  }
  const right = y.filter((v) => v === 1).length;
  return { calibration, samples: y.length, right, wrong: y.length - right };
}
