import type { RelevanceEvidence } from './calibration.js';

/**
 * Answer or refuse, on evidence (docs/retrieval.md "Answerability"): the ranking model says which
 * candidate is most likely right; this second, weight-free model says whether the question is answered
 * by it at all. Its features describe how the question and the passage agree — the coverage of the
 * question's rare terms, the margin over the runner-up document, whether the lexical and vector lists
 * agree, whether the passage holds what the question type asks for (an amount, a time, a reason, steps).
 * A logistic model over them is fitted per tenant on the top candidates of labelled questions (right /
 * wrong or unanswerable), beside the ranking model (`calibration-fit.ts`). Pure: no Nest, no database.
 */

/** Question types a passage can visibly answer or not (question words → what the passage then holds). */
export type QuestionType = 'amount' | 'time' | 'reason' | 'procedure';

interface TypeCues {
  /** The question asks for it (checked on the folded query). */
  asks: RegExp;
  /** The passage holds it (checked on the folded passage). */
  holds: RegExp;
}

// Ordered: the first type whose question cue matches is the question's type ("how much" before "how").
const TYPES: readonly (readonly [QuestionType, TypeCues])[] = [
  [
    'amount',
    {
      asks: /\bhow (much|many)\b|\b(cost|costs|fee|fees|price|prices|charge|charges|charged|rate|limit|limits)\b|多少钱|多少|费用|收费|价格|价钱|手续费|几个|几台|额度|上限/u,
      holds:
        /\d|[$€£¥]|\b(fee|fees|free|charge|charges|charged|cost|costs|price|rate|limit|percent|one|two|three|ten|hundred)\b|元|块|费|免费|收费|价|%|个|次|台|[一二三四五六七八九十百千万]/u,
    },
  ],
  [
    'time',
    {
      asks: /\bwhen\b|\bhow long\b|\bwhat time\b|\bhow soon\b|什么时候|多久|多长时间|几点|何时|几天|哪天|时间/u,
      holds:
        /\d|\b(day|days|hour|hours|minute|minutes|week|weeks|month|months|year|years|today|tomorrow|immediately|instantly|soon|business|working|time|daily|monday|friday)\b|天|小时|分钟|周|星期|月|年|工作日|今天|明天|立即|马上|点|时/u,
    },
  ],
  [
    'reason',
    {
      asks: /\bwhy\b|\bwhat caus|\breason\b|为什么|为啥|为何|原因|怎么会/u,
      holds: /\bbecause\b|\bdue to\b|\bsince\b|\breason|\bcaus|\bso that\b|\bmay (be|have)\b|因为|由于|原因|导致|所以|可能|造成/u,
    },
  ],
  [
    'procedure',
    {
      asks: /\bhow (do|can|to|should|would|does|is)\b|\bsteps?\b|怎么|怎样|如何|步骤|方法|咋/u,
      holds:
        /\b(step|steps|click|tap|select|go to|open|press|enter|set|use|using|run|follow|first|then|choose|navigate|add|remove|reset|contact|submit|fill)\b|^\s*\d+[.)、]|步骤|点击|进入|选择|打开|按|设置|首先|然后|再|输入|联系|提交|填写|使用|执行|重置|复位/mu,
    },
  ],
];

/** The question's type, or null when it asks for none of them (a yes/no or "what is" question). */
export function questionType(query: string): QuestionType | null {
  const q = query.normalize('NFKC').toLowerCase();
  for (const [type, cues] of TYPES) if (cues.asks.test(q)) return type;
  return null;
}

/** The passage holds what a question of `type` asks for. */
export function passageAnswersType(type: QuestionType, passage: string): boolean {
  const cues = TYPES.find(([t]) => t === type)?.[1];
  return cues ? cues.holds.test(passage.normalize('NFKC').toLowerCase()) : false;
}

/** The rank-model–independent agreement evidence of one candidate (computed by `hybrid.ts`). */
export interface AgreementEvidence {
  /** Share of the question's rare terms (known terms whose IDF is at least the lower median of the question's known terms: with two, both) present in the passage, 0..1. */
  rareCoverage: number;
  /** Its IDF-weighted coverage minus the best coverage of another document, -1..1. */
  coverageMargin: number;
  /** It is first in both the lexical and the vector list (the two kinds of evidence agree). */
  listsAgree: boolean;
  /** It is in the lexical list, in the vector list, or both: 0, 0.5 or 1. */
  listPresence: number;
  /** The question has a {@link QuestionType}. */
  typeAsked: boolean;
  /** The question has a type and the passage holds what it asks for. */
  typeAnswered: boolean;
  /** Distinct query terms the corpus knows. */
  knownTerms: number;
  /** Share of the candidate's title terms the question holds (or a translation of them), 0..1: how much of what the passage is about was asked. */
  titleCoverage: number;
  /** Its title coverage minus the best title coverage of another document, -1..1. */
  titleMargin: number;
  /**
   * Other documents among the first fused candidates whose text shares at least {@link MIN_RECORDED_OVERLAP} of
   * its analyzed terms with this one (Jaccard): a near-duplicate says the same thing and is no rival answer.
   */
  overlaps: readonly { documentId: string; overlap: number }[];
}

/** Overlaps below this are not recorded. */
export const MIN_RECORDED_OVERLAP = 0.1;
/** Candidates whose texts are compared (the first ones in fused order). */
export const OVERLAP_CANDIDATES = 10;
/** Two documents sharing at least this share of their terms (Jaccard) are near-duplicates: neither is the other's rival. */
export const TWIN_OVERLAP = 0.2;

/** Jaccard overlap of two term sets, 0..1 (0 when both are empty). */
export function termOverlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}

/** The ranking model's view of a candidate within its list: its logit and its margin over the best other document. */
export interface RankContext {
  logit: number;
  margin: number;
  /** Its logit minus the best logit of another document that is not a near-duplicate of it ({@link TWIN_OVERLAP}). */
  rivalMargin: number;
}

export const ANSWERABILITY_FEATURE_NAMES = [
  'bias',
  'rankLogit',
  'logitMargin',
  'rivalMargin',
  'rareCoverage',
  'coverageMargin',
  'listsAgree',
  'listPresence',
  'typeAsked',
  'typeAnswered',
  'shortQuery',
  'unknownShare',
  'missesRarestTerm',
  'titleCoverage',
  'titleMargin',
] as const;

const LOGIT_BOUND = 8;
const clampLogit = (z: number) => (Number.isFinite(z) ? Math.min(LOGIT_BOUND, Math.max(-LOGIT_BOUND, z)) : 0);
const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** The feature vector of one candidate, in {@link ANSWERABILITY_FEATURE_NAMES} order (logits clamped to ±8, the rest within -1..1). */
export function answerabilityFeatures(
  rank: RankContext,
  evidence: Pick<RelevanceEvidence, 'unknownShare' | 'missesRarestTerm'>,
  a: AgreementEvidence,
): number[] {
  return [
    1,
    clampLogit(rank.logit),
    clampLogit(rank.margin),
    clampLogit(rank.rivalMargin),
    clamp01(a.rareCoverage),
    Number.isFinite(a.coverageMargin) ? Math.min(1, Math.max(-1, a.coverageMargin)) : 0,
    a.listsAgree ? 1 : 0,
    clamp01(a.listPresence),
    a.typeAsked ? 1 : 0,
    a.typeAsked && a.typeAnswered ? 1 : 0,
    1 / Math.max(1, a.knownTerms),
    clamp01(evidence.unknownShare),
    evidence.missesRarestTerm ? 1 : 0,
    clamp01(a.titleCoverage),
    Number.isFinite(a.titleMargin) ? Math.min(1, Math.max(-1, a.titleMargin)) : 0,
  ];
}

/** Logistic weights of the answerability model, in {@link ANSWERABILITY_FEATURE_NAMES} order. */
export interface AnswerabilityModel {
  weights: number[];
}

const RIVAL_MARGIN = ANSWERABILITY_FEATURE_NAMES.indexOf('rivalMargin');

/**
 * Whether a model reads the near-duplicate overlaps of the candidates (through `rivalMargin`). Comparing
 * the passages' term sets is the costliest part of the agreement evidence: a lookup whose model gives it
 * no weight skips it; a fit, which may give it one, always collects it.
 */
export function readsOverlaps(model: AnswerabilityModel | undefined): boolean {
  return model !== undefined && (model.weights[RIVAL_MARGIN] ?? 0) !== 0;
}

/**
 * Share of a title's analyzed terms that the question holds, directly or through one of its terms'
 * translations (`questionTerms` already includes them). 0 for a title without terms.
 */
export function titleCoverage(titleTerms: readonly string[], questionTerms: ReadonlySet<string>): number {
  const distinct = [...new Set(titleTerms)];
  return distinct.length ? distinct.filter((t) => questionTerms.has(t)).length / distinct.length : 0;
}

/**
 * Each candidate's logit under the ranking model and its margins over the best candidate of another
 * document (another section of the same manual is not a rival answer) and over the best one that is not
 * a near-duplicate of it (`twins`: documents at or above {@link TWIN_OVERLAP} with it). The runner-up of the
 * top candidate is the second document; every other candidate's margin is negative; without one, 0.
 */
export function rankContexts(candidates: readonly { logit: number; documentId: string; overlaps?: AgreementEvidence['overlaps'] }[]): RankContext[] {
  return candidates.map((c, i) => {
    const twins = new Set((c.overlaps ?? []).filter((o) => o.overlap >= TWIN_OVERLAP).map((o) => o.documentId));
    let best = -Infinity;
    let rival = -Infinity;
    for (let k = 0; k < candidates.length; k++) {
      if (k === i || candidates[k].documentId === c.documentId) continue;
      best = Math.max(best, candidates[k].logit);
      if (!twins.has(candidates[k].documentId)) rival = Math.max(rival, candidates[k].logit);
    }
    // With nothing to compare, no margin speaks for it: a question that matches one document by one
    // word is no more answerable for it (and lists that short are outside what a fit learns from).
    return {
      logit: c.logit,
      margin: best === -Infinity ? 0 : c.logit - best,
      rivalMargin: rival === -Infinity ? 0 : c.logit - rival,
    };
  });
}

/**
 * Agreement evidence of each candidate from per-term presence: `present[i][t]` says whether candidate
 * i's passage holds query term t (or one of its translations), `idf[t]` the term's IDF, `known[t]` whether
 * the corpus knows it. Rare terms are the known ones at or above the lower median IDF of the known terms.
 */
export function agreementEvidence(input: {
  query: string;
  idf: readonly number[];
  known: readonly boolean[];
  candidates: readonly {
    documentId: string;
    present: readonly boolean[];
    coverage: number;
    lexicalRank: number | null;
    vectorRank: number | null;
    passage: string;
    /** Share of its title's terms the question holds. */
    titleCoverage: number;
    /** Its analyzed terms, for the first {@link OVERLAP_CANDIDATES} candidates (null for the rest: not compared). */
    terms: ReadonlySet<string> | null;
  }[];
}): AgreementEvidence[] {
  const knownIdf = input.idf.filter((_, t) => input.known[t]).sort((a, b) => a - b);
  const median = knownIdf.length ? knownIdf[Math.floor((knownIdf.length - 1) / 2)] : Infinity;
  const rare = input.idf.map((v, t) => input.known[t] && v >= median);
  const rareCount = rare.filter(Boolean).length;
  const type = questionType(input.query);
  const overlapsOf = (i: number): AgreementEvidence['overlaps'] => {
    const mine = input.candidates[i];
    if (!mine.terms) return [];
    const out = new Map<string, number>();
    for (const other of input.candidates) {
      if (!other.terms || other.documentId === mine.documentId) continue;
      const overlap = termOverlap(mine.terms, other.terms);
      if (overlap >= MIN_RECORDED_OVERLAP && overlap > (out.get(other.documentId) ?? 0)) out.set(other.documentId, overlap);
    }
    return [...out].map(([documentId, overlap]) => ({ documentId, overlap }));
  };
  return input.candidates.map((c, i) => {
    let bestOther = 0;
    let bestOtherTitle = 0;
    for (let k = 0; k < input.candidates.length; k++)
      if (k !== i && input.candidates[k].documentId !== c.documentId) {
        bestOther = Math.max(bestOther, input.candidates[k].coverage);
        bestOtherTitle = Math.max(bestOtherTitle, input.candidates[k].titleCoverage);
      }
    return {
      rareCoverage: rareCount ? rare.filter((r, t) => r && c.present[t]).length / rareCount : 0,
      coverageMargin: c.coverage - bestOther,
      listsAgree: c.lexicalRank === 1 && c.vectorRank === 1,
      listPresence: ((c.lexicalRank !== null ? 1 : 0) + (c.vectorRank !== null ? 1 : 0)) / 2,
      typeAsked: type !== null,
      typeAnswered: type !== null && passageAnswersType(type, c.passage),
      knownTerms: knownIdf.length,
      titleCoverage: c.titleCoverage,
      titleMargin: c.titleCoverage - bestOtherTitle,
      overlaps: overlapsOf(i),
    };
  });
}
