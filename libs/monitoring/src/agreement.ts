/**
 * Agreement between a predictor (self-evaluation, coverage verdict) and user feedback: the 2×2 table,
 * observed agreement and Cohen's κ (docs/learning.md "Agreement"). Pure: no Nest, no database.
 */

/** A 2×2 table: rows = the predictor (good | bad), columns = the feedback (useful | not useful). */
export interface AgreementTable {
  goodUseful: number;
  goodNotUseful: number;
  badUseful: number;
  badNotUseful: number;
}

export interface Agreement {
  table: AgreementTable;
  n: number;
  /** (goodUseful + badNotUseful) / n; null when n = 0. */
  observedAgreement: number | null;
  /** Agreement expected by chance from the two margins; null when n = 0. */
  expectedAgreement: number | null;
  /** (po − pe) / (1 − pe); null when n = 0 or pe = 1 (both raters gave one and the same value to every session). */
  kappa: number | null;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

export function cohensKappa(table: AgreementTable): Agreement {
  const { goodUseful: a, goodNotUseful: b, badUseful: c, badNotUseful: d } = table;
  for (const [k, v] of Object.entries(table)) if (!Number.isInteger(v) || v < 0) throw new RangeError(`${k} must be a non-negative integer, got ${v}`);
  const n = a + b + c + d;
  if (n === 0) return { table: { ...table }, n, observedAgreement: null, expectedAgreement: null, kappa: null };
  const po = (a + d) / n;
  const pe = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
  // pe = 1 exactly when both margins put everything in the same single category: κ is 0/0.
  const kappa = pe >= 1 ? null : (po - pe) / (1 - pe);
  return { table: { ...table }, n, observedAgreement: round(po), expectedAgreement: round(pe), kappa: kappa === null ? null : round(kappa) };
}

/** Default self-evaluation threshold: confidence ≥ 0.6 (60 of 100) reads as "good" — the LLM rubric's lower bound of "mostly supported". */
export const DEFAULT_SELF_EVALUATION_THRESHOLD = 0.6;
