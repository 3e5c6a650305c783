/**
 * Scoring of `bench:documents` (issue 22, "Tests and benchmarks"; definitions in bench/documents/README.md).
 * Pure logic: no Nest, no database, no HTTP.
 *
 * - answered in the top 3: one of the first three results' page ranges (`page..pageEnd`) meets the
 *   question's labelled pages;
 * - page cited correctly: of the questions answered in the top 3, the share whose top result carries a page
 *   (from the API itself) and whose `page..pageEnd` meets the labelled pages (also reported over the questions
 *   the lookup offers an answer to, i.e. does not grade INSUFFICIENT);
 * - refused: an unanswerable question graded INSUFFICIENT (or answered with no result at all).
 */
import { pageRangeMeets } from '@arbiter/retrieval';

/** A result as ranked by Arbiter or by the BM25 baseline: where it came from in the PDF, when known. */
export interface RankedPassage {
  page: number | null;
  pageEnd: number | null;
}

/** The bars of issue 22, per language (percentages). */
export const BARS = Object.freeze({ answeredTop3: 75, pageCited: 90, unanswerableInsufficient: 75, importSeconds: 30, healthP99Ms: 100 });

/** True when the passage's page range `page..pageEnd` (pageEnd defaults to page) shares a page with `pages`. */
export function meetsPages(passage: RankedPassage, pages: readonly number[]): boolean {
  return pageRangeMeets(passage.page, passage.pageEnd, pages);
}

/** The rank (0-based) of the first passage among the first `k` whose pages meet `pages`, or -1. */
export function firstHit(ranked: readonly RankedPassage[], pages: readonly number[], k: number): number {
  return ranked.slice(0, k).findIndex((r) => meetsPages(r, pages));
}

export interface AnswerableOutcome {
  /** Rank of the first result meeting the labelled pages within the top 3, or -1. */
  hitRank: number;
  /** The top result came with its page from the API (not recovered by the bench). */
  topHasApiPage: boolean;
  /** The top result's page range meets the labelled pages. */
  topMeets: boolean;
  /** The lookup graded the question INSUFFICIENT. */
  insufficient: boolean;
}

/** An answerable question's outcome from Arbiter's ranked passages (`top`: the first, with whether its page came from the API). */
export function answerableOutcome(
  passages: readonly (RankedPassage & { fromApi?: boolean })[],
  pages: readonly number[],
  k: number,
  insufficient: boolean,
): AnswerableOutcome {
  const top = passages[0];
  return { hitRank: firstHit(passages, pages, k), topHasApiPage: top?.fromApi ?? false, topMeets: top ? meetsPages(top, pages) : false, insufficient };
}

export interface AnswerableSummary {
  questions: number;
  /** % answered in the top 3. */
  answeredTop3: number;
  /** % answered by the top result. */
  answeredTop1: number;
  /** Mean reciprocal rank within the top 3. */
  mrrAt3: number;
  /** Of the questions answered in the top 3: % whose top result carries its page (from the API) and meets the labelled pages. */
  pageCited: number;
  /** Questions answered in the top 3 (the denominator of `pageCited`). */
  answeredCount: number;
  /** % of answerable questions graded INSUFFICIENT (wrongly refused). */
  answerableInsufficient: number;
  /** Of the answerable questions not graded INSUFFICIENT (the lookup offers an answer): % whose top result carries its page (from the API) and meets the labelled pages. */
  citedWhenOffered: number;
  /** Answerable questions not graded INSUFFICIENT (the denominator of `citedWhenOffered`). */
  offeredCount: number;
}

const share = (part: number, whole: number): number => (whole ? (100 * part) / whole : 0);

export function summarizeAnswerable(outcomes: readonly AnswerableOutcome[]): AnswerableSummary {
  const answered = outcomes.filter((o) => o.hitRank >= 0);
  const offered = outcomes.filter((o) => !o.insufficient);
  return {
    questions: outcomes.length,
    answeredTop3: share(answered.length, outcomes.length),
    answeredTop1: share(outcomes.filter((o) => o.hitRank === 0).length, outcomes.length),
    mrrAt3: outcomes.length ? outcomes.reduce((s, o) => s + (o.hitRank >= 0 ? 1 / (o.hitRank + 1) : 0), 0) / outcomes.length : 0,
    pageCited: share(answered.filter((o) => o.topHasApiPage && o.topMeets).length, answered.length),
    answeredCount: answered.length,
    answerableInsufficient: share(outcomes.filter((o) => o.insufficient).length, outcomes.length),
    citedWhenOffered: share(offered.filter((o) => o.topHasApiPage && o.topMeets).length, offered.length),
    offeredCount: offered.length,
  };
}

/**
 * Issue 23's three grading rates on a manual (bench/documents/README.md "Grading rates"), as the FAQ sets report them:
 * of lookups whose top result is right (meets the labels), % graded INSUFFICIENT; of lookups whose top result is
 * wrong — answerable questions whose top result misses the labels, and every unanswerable question — % not graded
 * INSUFFICIENT; of unanswerable questions, % graded INSUFFICIENT.
 */
export interface GradingRates {
  rightTops: number;
  rightRefused: number;
  wrongTops: number;
  wrongNotInsufficient: number;
  unanswerable: number;
  unanswerableRefused: number;
}

export function gradingRates(answerable: readonly AnswerableOutcome[], unanswerableInsufficient: readonly boolean[]): GradingRates {
  const right = answerable.filter((o) => o.topMeets);
  const wrongInsufficient = [...answerable.filter((o) => !o.topMeets).map((o) => o.insufficient), ...unanswerableInsufficient];
  return {
    rightTops: right.length,
    rightRefused: share(right.filter((o) => o.insufficient).length, right.length),
    wrongTops: wrongInsufficient.length,
    wrongNotInsufficient: share(wrongInsufficient.filter((refused) => !refused).length, wrongInsufficient.length),
    unanswerable: unanswerableInsufficient.length,
    unanswerableRefused: share(unanswerableInsufficient.filter((refused) => refused).length, unanswerableInsufficient.length),
  };
}

/**
 * The same questions through `/ai/chat` without a model (issue 23 item 5, as `bench:retrieval:quality` reports the FAQ
 * sets): of every question, answerable and not, % answered with a reference that meets the labelled pages, %
 * answered without one (every answered unanswerable question among them), % refused (no reference); of the unanswerable
 * questions, % refused. `citedWhenAnswered`: of the answerable questions the chat answered, % with such a reference.
 */
export interface ChatRates {
  questions: number;
  answeredRight: number;
  answeredWrong: number;
  refused: number;
  unanswerableRefused: number;
  citedWhenAnswered: number;
}

/** A chat turn's answer to a question: whether it quoted any reference, and whether one of them meets the labelled pages. */
export interface ChatOutcome {
  answered: boolean;
  citesLabelledPage: boolean;
}

export function chatRates(answerable: readonly ChatOutcome[], unanswerableAnswered: readonly boolean[]): ChatRates {
  const questions = answerable.length + unanswerableAnswered.length;
  const right = answerable.filter((o) => o.answered && o.citesLabelledPage).length;
  const answeredAnswerable = answerable.filter((o) => o.answered).length;
  const answeredUnanswerable = unanswerableAnswered.filter(Boolean).length;
  return {
    questions,
    answeredRight: share(right, questions),
    answeredWrong: share(answeredAnswerable - right + answeredUnanswerable, questions),
    refused: share(questions - answeredAnswerable - answeredUnanswerable, questions),
    unanswerableRefused: share(unanswerableAnswered.length - answeredUnanswerable, unanswerableAnswered.length),
    citedWhenAnswered: share(right, answeredAnswerable),
  };
}

/** A lookup's verdict on the question: INSUFFICIENT as the relevance level or the completeness hint, or no result at all. */
export function gradedInsufficient(lookup: { relevanceLevel?: string | null; completenessHint?: string | null; results: readonly unknown[] }): boolean {
  return lookup.relevanceLevel === 'INSUFFICIENT' || lookup.completenessHint === 'INSUFFICIENT' || lookup.results.length === 0;
}

/** Nearest-rank percentile of ascending `sorted` values (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Latencies of one route over a phase, as the health client reports them (milliseconds, 0.1 ms steps). */
export interface LatencyStats {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Every latency, in the order answered: phases are merged from them. */
  latencies: number[];
}

export function latencyStats(latencies: readonly number[], statuses: Readonly<Record<string, number>>, errors: number): LatencyStats {
  const sorted = [...latencies].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    requests: sorted.length,
    errors,
    statuses: { ...statuses },
    p50: r(percentile(sorted, 50)),
    p95: r(percentile(sorted, 95)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted.at(-1) ?? Number.NaN),
    latencies: latencies.map(r),
  };
}

/** One phase's stats from two consecutive phases (either may be missing). */
export function mergeLatencyStats(a: LatencyStats | null, b: LatencyStats | null): LatencyStats {
  const statuses: Record<string, number> = {};
  for (const s of [a, b]) for (const [k, v] of Object.entries(s?.statuses ?? {})) statuses[k] = (statuses[k] ?? 0) + v;
  return latencyStats([...(a?.latencies ?? []), ...(b?.latencies ?? [])], statuses, (a?.errors ?? 0) + (b?.errors ?? 0));
}
