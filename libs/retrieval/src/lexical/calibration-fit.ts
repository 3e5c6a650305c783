import { type Calibration, type CalibrationCuts, features, FEATURE_NAMES, type RelevanceEvidence, sigmoid } from './calibration.js';

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

/** Grading quality of `calibration` on labelled lookups (answerable = any candidate is right). */
export function evaluateGrading(lookups: readonly (LabelledLookup & { answerable: boolean })[], calibration: Calibration): GradingMetrics {
  let right = 0;
  let rightInsufficient = 0;
  let wrong = 0;
  let wrongAnswered = 0;
  let wrongNotInsufficient = 0;
  let absent = 0;
  let absentInsufficient = 0;
  for (const l of lookups) {
    const top = rerank(calibration, l.candidates)[0];
    const sufficient = top ? top.probability >= calibration.cuts.reference : false;
    const strong = top ? top.probability >= calibration.cuts.highlyRelevant : false;
    if (top?.right) {
      right++;
      if (!sufficient) rightInsufficient++;
    } else {
      wrong++;
      if (strong) wrongAnswered++;
      if (sufficient) wrongNotInsufficient++;
    }
    if (!l.answerable) {
      absent++;
      if (!sufficient) absentInsufficient++;
    }
  }
  const share = (a: number, b: number) => (b ? a / b : 0);
  return {
    lookups: lookups.length,
    answerable: lookups.length - absent,
    hitAt1: share(right, lookups.length - absent),
    rightInsufficient: share(rightInsufficient, right),
    wrongAnswered: share(wrongAnswered, wrong),
    wrongNotInsufficient: share(wrongNotInsufficient, wrong),
    absentInsufficient: share(absentInsufficient, absent),
  };
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

/**
 * Learns which candidates are right (pointwise logistic model over all candidates of all lookups),
 * then places the cuts on the probabilities of the top candidates: the highly-relevant cut so that at
 * most `maxWrongAnswered` of the wrong ones reach it, the reference cut (never above it) so that at
 * most `maxRightInsufficient` of the right ones fall below it.
 */
export function fitCalibration(lookups: readonly LabelledLookup[], targets: GradeTargets = DEFAULT_GRADE_TARGETS): FitReport {
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
  const weights = x.length ? fitLogistic(x, y, 1e-2, 50, sampleWeights) : new Array<number>(FEATURE_NAMES.length).fill(0);
  const wrongTop: number[] = [];
  const rightTop: number[] = [];
  for (const l of lookups) {
    const top = rerank({ weights }, l.candidates.slice(0, CANDIDATES_PER_LOOKUP))[0];
    if (top) (top.right ? rightTop : wrongTop).push(top.probability);
  }
  const highlyRelevant = cutForWrongShare(wrongTop, targets.maxWrongAnswered);
  const cuts: CalibrationCuts = { reference: Math.min(highlyRelevant, cutForRightShare(rightTop, targets.maxRightInsufficient)), highlyRelevant };
  const right = y.filter((v) => v === 1).length;
  return { calibration: { weights, cuts }, samples: y.length, right, wrong: y.length - right };
}
