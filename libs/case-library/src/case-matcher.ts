/**
 * Matching a chat message against the tenant's verified cases (docs/learning.md "Feedback that teaches").
 * Pure: no Nest, no database.
 *
 * A case's question and the message are featurized by the intent routing core's `HashingFeaturizer`
 * (CJK character uni/bigrams, word uni/bigrams and per-word character 3-grams, hashed), weighted TF-IDF
 * with the IDF fitted on the tenant's case questions (sublinear TF, smoothed IDF, the same formulas as
 * the routing core's `TfidfVectorizer`, kept sparse here so an index costs memory in proportion to its
 * cases), L2-normalised; the similarity is their cosine (0..1 for identical sign patterns, rounded to 6
 * decimals). An inverted index touches only the cases that share a feature with the message.
 */
import { HashingFeaturizer } from '@arbiter/intent';
import type { CaseSourceType } from './case-library.types.js';

/** Default per-tenant threshold: the similarity at or above which a case answers (docs/learning.md for why). */
export const DEFAULT_CASE_ANSWER_THRESHOLD = 0.85;

/** Problems of a threshold, or [] when it lies in (0, 1]. */
export function caseThresholdProblems(value: unknown): string[] {
  if (typeof value !== 'number' || !Number.isFinite(value)) return ['threshold must be a number in (0, 1]'];
  if (value <= 0 || value > 1) return [`threshold must be greater than 0 and at most 1 (got ${value})`];
  return [];
}

export interface IndexedCase {
  id: string;
  query: string;
  answer: string;
  sourceType: CaseSourceType;
  /** Epoch milliseconds of the case's last change (ties: the newer case wins). */
  updatedAt: number;
}

export interface CaseMatch {
  case: IndexedCase;
  similarity: number;
}

const CJK = '\\u3400-\\u9fff\\uf900-\\ufaff\\u3040-\\u30ff\\uac00-\\ud7af';
const CJK_THEN_OTHER = new RegExp(`([${CJK}])(?=[\\p{L}\\p{N}])(?![${CJK}])`, 'gu');
const OTHER_THEN_CJK = new RegExp(`([\\p{L}\\p{N}])(?<![${CJK}])(?=[${CJK}])`, 'gu');

/**
 * Separates CJK runs from adjacent letters/digits ("报警E201怎么" → "报警 E201 怎么"): the featurizer reads a run
 * of letters starting with a Latin one as one word, so without this the spacing a user typed would change the
 * features of a mixed question.
 */
export function separateScripts(text: string): string {
  return text.replace(CJK_THEN_OTHER, '$1 ').replace(OTHER_THEN_CJK, '$1 ');
}

const FEATURIZER = new HashingFeaturizer({ bits: 20 });

type Features = Map<number, number>;

function features(text: string): Features {
  const raw = FEATURIZER.features(separateScripts(text));
  for (const [bucket, count] of raw) if (count === 0) raw.delete(bucket);
  return raw;
}

/** Sublinear TF · IDF, L2-normalised, as parallel arrays. */
function weigh(f: Features, idf: (bucket: number) => number): { idx: number[]; val: number[] } {
  const idx: number[] = [];
  const val: number[] = [];
  let norm = 0;
  for (const [bucket, count] of f) {
    const w = Math.sign(count) * (1 + Math.log(Math.abs(count))) * idf(bucket);
    idx.push(bucket);
    val.push(w);
    norm += w * w;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < val.length; i++) val[i] /= norm;
  return { idx, val };
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Prefers, among equally similar cases, an operator's (MANUAL), then the most recently changed, then the smaller id. */
function better(a: IndexedCase, b: IndexedCase): boolean {
  if (a.sourceType !== b.sourceType) return a.sourceType === 'MANUAL';
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt;
  return a.id < b.id;
}

/** An immutable index of one tenant's verified cases. */
export class CaseIndex {
  private constructor(
    readonly cases: readonly IndexedCase[],
    private readonly df: Map<number, number>,
    private readonly postings: Map<number, { doc: number[]; w: number[] }>,
  ) {}

  static readonly empty = CaseIndex.build([]);

  static build(cases: readonly IndexedCase[]): CaseIndex {
    const feats = cases.map((c) => features(c.query));
    const df = new Map<number, number>();
    for (const f of feats) for (const bucket of f.keys()) df.set(bucket, (df.get(bucket) ?? 0) + 1);
    const index = new CaseIndex(cases, df, new Map());
    feats.forEach((f, doc) => {
      const v = weigh(f, (b) => index.idf(b));
      for (let i = 0; i < v.idx.length; i++) {
        let p = index.postings.get(v.idx[i]);
        if (p === undefined) index.postings.set(v.idx[i], (p = { doc: [], w: [] }));
        p.doc.push(doc);
        p.w.push(v.val[i]);
      }
    });
    return index;
  }

  get size(): number {
    return this.cases.length;
  }

  /** Smoothed IDF `ln((1 + N) / (1 + df)) + 1`; a feature no case has gets the highest weight. */
  private idf(bucket: number): number {
    return Math.log((1 + this.cases.length) / (1 + (this.df.get(bucket) ?? 0))) + 1;
  }

  /** The most similar case (ties as in `better`), or null when no case shares a feature with the message. */
  best(message: string): CaseMatch | null {
    if (this.cases.length === 0) return null;
    const q = weigh(features(message), (b) => this.idf(b));
    const scores = new Map<number, number>();
    for (let i = 0; i < q.idx.length; i++) {
      const p = this.postings.get(q.idx[i]);
      if (p === undefined) continue;
      for (let j = 0; j < p.doc.length; j++) scores.set(p.doc[j], (scores.get(p.doc[j]) ?? 0) + q.val[i] * p.w[j]);
    }
    let best: CaseMatch | null = null;
    for (const [doc, score] of scores) {
      const similarity = Math.min(1, Math.max(0, round6(score)));
      const c = this.cases[doc];
      if (best === null || similarity > best.similarity || (similarity === best.similarity && better(c, best.case))) best = { case: c, similarity };
    }
    return best;
  }

  /** The best case when its similarity is at least `threshold`, else null. */
  match(message: string, threshold: number): CaseMatch | null {
    const best = this.best(message);
    return best !== null && best.similarity >= threshold ? best : null;
  }
}
