import { describe, expect, it } from '@jest/globals';
import {
  calculateRetrievalConfidence,
  CONFIDENCE_PROFILES,
  confidenceThresholds,
  type ConfidenceLevel,
  type ConfidenceResultInput,
  getRelevance,
} from './retrieval-confidence.js';

const rel = (...values: number[]): ConfidenceResultInput[] => values.map((relevance) => ({ relevance }));
const fill = (n: number, relevance: number, extra: Partial<ConfidenceResultInput> = {}): ConfidenceResultInput[] =>
  Array.from({ length: n }, () => ({ relevance, ...extra }));

describe('calculateRetrievalConfidence (docs/spec/evaluation.md §2)', () => {
  const table: [string, string | undefined, ConfidenceResultInput[], number, ConfidenceLevel, string[]][] = [
    // name, profile, results, score, level, reasons
    ['no results (search)', 'search', [], 0, 'low', ['无搜索结果']],
    ['no results (dependency: no scenario bonus)', 'dependency', [], 0, 'low', ['无搜索结果']],
    ['search: one result with top > 0.9 gets the scenario bonus', 'search', rel(0.95), 0.66, 'high', ['最高相关度 95%']],
    ['search: top exactly 0.9 gets no bonus', 'search', rel(0.9), 0.44, 'medium', ['最高相关度 90%']],
    ['search: top exactly 0.8 has no top-relevance reason', 'search', rel(0.8), 0.4, 'medium', []],
    ['search: five results at 0.5', 'search', fill(5, 0.5), 0.6, 'high', ['找到 5 个相关结果']],
    ['search: exactly the high threshold 0.5', 'search', fill(5, 0.25), 0.5, 'high', ['找到 5 个相关结果']],
    ['search: exactly the medium threshold 0.25', 'search', rel(0.425), 0.25, 'medium', []],
    ['search: below medium', 'search', rel(0.1, 0.1), 0.2, 'low', []],
    ['search: count score saturates at 5', 'search', fill(7, 0.1), 0.44, 'medium', ['找到 7 个相关结果']],
    ['search: top relevance is the first result, not the max', 'search', rel(0.5, 0.95), 0.45, 'medium', []],
    [
      'impact: matches > 1 adds 0.2 and a reason',
      'impact',
      [
        { relevance: 0.85, matches: 1 },
        { relevance: 0.6, matches: 3 },
      ],
      0.65,
      'medium',
      ['最高相关度 85%', '发现多处引用'],
    ],
    ['impact: no multiple matches, no bonus', 'impact', [{ relevance: 0.85, matches: 1 }, { relevance: 0.6 }], 0.45, 'medium', ['最高相关度 85%']],
    ['impact: full marks', 'impact', [...fill(4, 0.75), { relevance: 0.75, matches: 2 }], 0.9, 'high', ['找到 5 个相关结果', '发现多处引用']],
    ['impact: exactly the high threshold 0.7', 'impact', fill(5, 0.75), 0.7, 'high', ['找到 5 个相关结果']],
    ['impact: matches exactly 1 is not "多处"', 'impact', fill(5, 0.5, { matches: 1 }), 0.6, 'medium', ['找到 5 个相关结果']],
    ['dependency: any result adds 0.2; exactly the medium threshold 0.4', 'dependency', rel(0.3), 0.4, 'medium', []],
    ['dependency: below medium', 'dependency', rel(0.2), 0.36, 'low', []],
    ['documentation: no scenario bonus', 'documentation', rel(0.95, 0.5, 0.4), 0.486666667, 'medium', ['找到 3 个相关结果', '最高相关度 95%']],
    ['reference: high at 0.5', 'reference', fill(5, 0.25), 0.5, 'high', ['找到 5 个相关结果']],
    ['complexity: high at exactly 0.6', 'complexity', fill(5, 0.5), 0.6, 'high', ['找到 5 个相关结果']],
    ['overview: just below 0.6', 'overview', fill(5, 0.4999), 0.59996, 'medium', ['找到 5 个相关结果']],
    ['refactor: exactly the medium threshold 0.3', 'refactor', rel(0.35, 0.35), 0.3, 'medium', []],
    ['unknown profile: thresholds 0.6/0.3, no scenario', 'foo', fill(5, 0.5), 0.6, 'high', ['找到 5 个相关结果']],
    ['missing profile: thresholds 0.6/0.3, no scenario bonus', undefined, rel(0.95), 0.46, 'medium', ['最高相关度 95%']],
    ['top relevance reason rounds to a whole percent', 'search', rel(0.876), 0.4304, 'medium', ['最高相关度 88%']],
    [
      'getRelevance fallbacks (toolScore, score, none)',
      'search',
      [{ toolScore: 0.9 }, { score: 0.6 }, {}],
      0.44,
      'medium',
      ['找到 3 个相关结果', '最高相关度 90%'],
    ],
  ];

  it.each(table)('%s', (_name, profile, results, score, level, reasons) => {
    const c = calculateRetrievalConfidence(results, profile);
    expect(c.score).toBeCloseTo(score, 9);
    expect(c.level).toBe(level);
    expect(c.reasons).toEqual(reasons);
    expect(c.event).toBe(`${level}-confidence`);
  });

  it('reports its components and profile', () => {
    const c = calculateRetrievalConfidence([...fill(4, 0.75), { relevance: 0.75, matches: 2 }], 'impact');
    expect(c.components).toEqual({ countScore: 0.4, qualityScore: 0.3, scenarioScore: 0.2 });
    expect(c.profile).toBe('impact');
    expect(calculateRetrievalConfidence([], 'nope').profile).toBeNull();
  });

  it('exact boundaries survive float noise (0.75·0.4 = 0.30000000000000004)', () => {
    expect(calculateRetrievalConfidence(fill(5, 0.75), 'impact').score).toBe(0.7);
  });

  it.each([
    ['impact', 0.7, 0.4],
    ['dependency', 0.7, 0.4],
    ['search', 0.5, 0.25],
    ['documentation', 0.5, 0.25],
    ['reference', 0.5, 0.25],
    ['complexity', 0.6, 0.3],
    ['overview', 0.6, 0.3],
    ['refactor', 0.6, 0.3],
    ['unknown', 0.6, 0.3],
    [undefined, 0.6, 0.3],
  ])('thresholds of %p are %p / %p', (profile, high, medium) => {
    expect(confidenceThresholds(profile)).toEqual({ high, medium });
  });

  it('covers every profile', () => {
    expect([...CONFIDENCE_PROFILES].sort()).toEqual(['complexity', 'dependency', 'documentation', 'impact', 'overview', 'refactor', 'reference', 'search']);
  });

  it.each([
    [{ relevance: 0.3, toolScore: 0.9, score: 0.8 }, 0.3],
    [{ toolScore: 0.9, score: 0.8 }, 0.9],
    [{ score: 0.8 }, 0.8],
    [{}, 0],
    [{ relevance: Number.NaN }, 0],
  ])('getRelevance(%p) = %p', (input, expected) => {
    expect(getRelevance(input)).toBe(expected);
  });
});
