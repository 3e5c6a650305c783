import { describe, expect, it } from '@jest/globals';
import {
  chatRates,
  firstHit,
  gradedInsufficient,
  gradingRates,
  latencyStats,
  meetsPages,
  mergeLatencyStats,
  percentile,
  summarizeAnswerable,
  type AnswerableOutcome,
} from './scoring.js';

describe('meetsPages', () => {
  it.each([
    { passage: { page: 12, pageEnd: 12 }, pages: [12], meets: true },
    { passage: { page: 12, pageEnd: null }, pages: [12], meets: true },
    { passage: { page: 11, pageEnd: 13 }, pages: [13, 20], meets: true },
    { passage: { page: 11, pageEnd: 13 }, pages: [10], meets: false },
    { passage: { page: 11, pageEnd: 13 }, pages: [14], meets: false },
    { passage: { page: 12, pageEnd: null }, pages: [13], meets: false },
    { passage: { page: null, pageEnd: null }, pages: [1], meets: false },
  ])('$passage.page..$passage.pageEnd against $pages: $meets', ({ passage, pages, meets }) => {
    expect(meetsPages(passage, pages)).toBe(meets);
  });
});

describe('firstHit', () => {
  const ranked = [
    { page: 3, pageEnd: 3 },
    { page: 40, pageEnd: 41 },
    { page: 7, pageEnd: 7 },
    { page: 41, pageEnd: 41 },
  ];
  it('is the rank of the first passage meeting the pages within the top k', () => {
    expect(firstHit(ranked, [41], 3)).toBe(1);
    expect(firstHit(ranked, [7], 3)).toBe(2);
    expect(firstHit(ranked, [3, 41], 3)).toBe(0);
  });
  it('ignores passages below the top k', () => {
    expect(firstHit(ranked, [7], 2)).toBe(-1);
    expect(firstHit([{ page: 1, pageEnd: 1 }, ...ranked], [41], 2)).toBe(-1);
  });
});

describe('summarizeAnswerable', () => {
  const outcome = (hitRank: number, topHasApiPage: boolean, topMeets: boolean, insufficient = false): AnswerableOutcome => ({
    hitRank,
    topHasApiPage,
    topMeets,
    insufficient,
  });

  it('counts answered in the top 3, by the top result, MRR and refusals over all questions', () => {
    const s = summarizeAnswerable([outcome(0, true, true), outcome(2, true, false), outcome(-1, true, false, true), outcome(1, true, false)]);
    expect(s.questions).toBe(4);
    expect(s.answeredTop3).toBe(75);
    expect(s.answeredTop1).toBe(25);
    expect(s.mrrAt3).toBeCloseTo((1 + 1 / 3 + 0 + 1 / 2) / 4, 10);
    expect(s.answerableInsufficient).toBe(25);
  });

  it('cites the page correctly only for answered questions whose top result carries its page from the API and meets the labels', () => {
    const s = summarizeAnswerable([outcome(0, true, true), outcome(0, false, true), outcome(1, true, false), outcome(-1, true, true)]);
    expect(s.answeredCount).toBe(3);
    expect(s.pageCited).toBeCloseTo(100 / 3, 10);
  });

  it('cites the page when an answer is offered: of the questions not graded INSUFFICIENT, the top result meets the labels with its page from the API', () => {
    const s = summarizeAnswerable([
      outcome(0, true, true),
      outcome(1, true, false),
      outcome(0, true, true, true),
      outcome(0, false, true),
      outcome(-1, true, false),
    ]);
    expect(s.offeredCount).toBe(4);
    expect(s.citedWhenOffered).toBe(25);
  });

  it('is zero, not NaN, without questions', () => {
    expect(summarizeAnswerable([])).toEqual({
      questions: 0,
      answeredTop3: 0,
      answeredTop1: 0,
      mrrAt3: 0,
      pageCited: 0,
      answeredCount: 0,
      answerableInsufficient: 0,
      citedWhenOffered: 0,
      offeredCount: 0,
    });
  });
});

describe("gradingRates (issue 23's three rates on a manual)", () => {
  const answerable = (topMeets: boolean, insufficient: boolean): AnswerableOutcome => ({
    hitRank: topMeets ? 0 : -1,
    topHasApiPage: true,
    topMeets,
    insufficient,
  });
  it.each([
    {
      name: 'right tops refused, wrong tops (answerable and unanswerable) answered, unanswerable refused',
      given: [answerable(true, false), answerable(true, true), answerable(false, false), answerable(false, true)],
      unanswerable: [true, true, false],
      expected: { rightTops: 2, rightRefused: 50, wrongTops: 5, wrongNotInsufficient: 40, unanswerable: 3, unanswerableRefused: 200 / 3 },
    },
    {
      name: 'every right top answered, every wrong top refused',
      given: [answerable(true, false), answerable(false, true)],
      unanswerable: [true],
      expected: { rightTops: 1, rightRefused: 0, wrongTops: 2, wrongNotInsufficient: 0, unanswerable: 1, unanswerableRefused: 100 },
    },
    {
      name: 'no questions: zeros, not NaN',
      given: [],
      unanswerable: [],
      expected: { rightTops: 0, rightRefused: 0, wrongTops: 0, wrongNotInsufficient: 0, unanswerable: 0, unanswerableRefused: 0 },
    },
  ])('$name', ({ given, unanswerable, expected }) => {
    const rates = gradingRates(given, unanswerable);
    for (const [key, value] of Object.entries(expected)) expect(rates[key as keyof typeof rates]).toBeCloseTo(value, 10);
  });
});

describe('gradedInsufficient', () => {
  it.each([
    { lookup: { relevanceLevel: 'INSUFFICIENT', completenessHint: null, results: [{}] }, refused: true },
    { lookup: { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT', results: [{}] }, refused: true },
    { lookup: { relevanceLevel: 'REFERENCE', completenessHint: null, results: [] }, refused: true },
    { lookup: { relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL', results: [{}] }, refused: false },
    { lookup: { relevanceLevel: 'PRECISE', completenessHint: null, results: [{}] }, refused: false },
  ])('$lookup.relevanceLevel / $lookup.completenessHint with $lookup.results.length results: $refused', ({ lookup, refused }) => {
    expect(gradedInsufficient(lookup)).toBe(refused);
  });
});

describe('percentile', () => {
  it('is the nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('latencyStats and mergeLatencyStats', () => {
  it('summarizes one phase', () => {
    const s = latencyStats([3, 1, 2, 4.04], { '200': 3, '503': 1 }, 1);
    expect(s).toMatchObject({ requests: 4, errors: 1, p50: 2, p95: 4, p99: 4, max: 4, statuses: { '200': 3, '503': 1 } });
    expect(s.latencies).toEqual([3, 1, 2, 4]);
  });

  it('merges two phases from their latencies, not their percentiles', () => {
    const upload = latencyStats(
      Array.from({ length: 99 }, () => 5),
      { '200': 99 },
      0,
    );
    const job = latencyStats([500], { '200': 1 }, 0);
    const merged = mergeLatencyStats(upload, job);
    expect(merged).toMatchObject({ requests: 100, errors: 0, p50: 5, p99: 5, max: 500, statuses: { '200': 100 } });
    expect(mergeLatencyStats(upload, null)).toMatchObject({ requests: 99, p99: 5 });
  });
});

describe('chatRates (the questions through /ai/chat)', () => {
  const turn = (answered: boolean, citesLabelledPage: boolean) => ({ answered, citesLabelledPage });
  it.each([
    {
      name: 'right, wrong and refused answers over all questions; unanswerable answered counts as wrong',
      answerable: [turn(true, true), turn(true, false), turn(false, false), turn(true, true)],
      unanswerable: [true, false, false, false],
      expected: { questions: 8, answeredRight: 25, answeredWrong: 25, refused: 50, unanswerableRefused: 75, citedWhenAnswered: 200 / 3 },
    },
    {
      name: 'everything refused',
      answerable: [turn(false, false), turn(false, false)],
      unanswerable: [false],
      expected: { questions: 3, answeredRight: 0, answeredWrong: 0, refused: 100, unanswerableRefused: 100, citedWhenAnswered: 0 },
    },
    {
      name: 'no questions',
      answerable: [],
      unanswerable: [],
      expected: { questions: 0, answeredRight: 0, answeredWrong: 0, refused: 0, unanswerableRefused: 0, citedWhenAnswered: 0 },
    },
  ])('$name', ({ answerable, unanswerable, expected }) => {
    const rates = chatRates(answerable, unanswerable);
    for (const [key, value] of Object.entries(expected)) expect(rates[key as keyof typeof rates]).toBeCloseTo(value, 6);
  });
});
