import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_RETRIEVAL_NORMALIZATION,
  gradeRelevance,
  isStrongRelevance,
  normalizeSimilarity,
  type RelevanceGrade,
  type RelevanceInput,
  validateNormalizationConfig,
} from './relevance.js';

describe('normalizeSimilarity (1 − min(d, max)/max)', () => {
  it.each([
    [0, 2, 1],
    [0.5, 2, 0.75],
    [1, 2, 0.5],
    [1.5, 2, 0.25],
    [2, 2, 0],
    [2.0000001, 2, 0],
    [2.5, 2, 0],
    [Number.POSITIVE_INFINITY, 2, 0],
    [-1e-7, 2, 1],
    [Number.NaN, 2, 0],
    [0.5, 1, 0.5],
    [3, 4, 0.25],
  ])('d=%p max=%p → %p', (d, max, expected) => {
    expect(normalizeSimilarity(d, max)).toBeCloseTo(expected, 12);
  });

  it('the brief boundaries are exact in binary floating point', () => {
    expect(normalizeSimilarity(0.5, 2)).toBe(0.75);
    expect(normalizeSimilarity(1, 2)).toBe(0.5);
  });

  it('defaults maxL2Distance to 2.0', () => {
    expect(normalizeSimilarity(1)).toBe(0.5);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects maxL2Distance=%p', (max) => {
    expect(() => normalizeSimilarity(1, max)).toThrow(RangeError);
  });
});

describe('gradeRelevance (docs/spec/retrieval.md)', () => {
  const cases: [string, RelevanceInput, RelevanceGrade][] = [
    ['L0 hit wins even with a weak L1', { l0MatchCount: 1, l1TopSimilarity: 0.1, hasResults: true }, { relevanceLevel: 'PRECISE', completenessHint: null }],
    ['L0 hit without L1', { l0MatchCount: 3, l1TopSimilarity: null, hasResults: true }, { relevanceLevel: 'PRECISE', completenessHint: null }],
    [
      'top similarity exactly 0.75',
      { l0MatchCount: 0, l1TopSimilarity: 0.75, hasResults: true },
      { relevanceLevel: 'HIGHLY_RELEVANT', completenessHint: null },
    ],
    ['top similarity 0.99', { l0MatchCount: 0, l1TopSimilarity: 0.99, hasResults: true }, { relevanceLevel: 'HIGHLY_RELEVANT', completenessHint: null }],
    ['just below 0.75', { l0MatchCount: 0, l1TopSimilarity: 0.7499999, hasResults: true }, { relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' }],
    ['top similarity exactly 0.5', { l0MatchCount: 0, l1TopSimilarity: 0.5, hasResults: true }, { relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' }],
    ['just below 0.5', { l0MatchCount: 0, l1TopSimilarity: 0.4999999, hasResults: true }, { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' }],
    [
      'similarity 0 (distance > 2.0)',
      { l0MatchCount: 0, l1TopSimilarity: normalizeSimilarity(2.3, 2), hasResults: true },
      { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' },
    ],
    ['no results at all', { l0MatchCount: 0, l1TopSimilarity: null, hasResults: false }, { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' }],
    [
      'stale similarity but no results',
      { l0MatchCount: 0, l1TopSimilarity: 0.9, hasResults: false },
      { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' },
    ],
    ['NaN similarity', { l0MatchCount: 0, l1TopSimilarity: Number.NaN, hasResults: true }, { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' }],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(gradeRelevance(input)).toEqual(expected);
  });

  it('distance → similarity → level at the exact brief boundaries', () => {
    const grade = (d: number) => gradeRelevance({ l0MatchCount: 0, l1TopSimilarity: normalizeSimilarity(d, 2), hasResults: true });
    expect(grade(0.5)).toEqual({ relevanceLevel: 'HIGHLY_RELEVANT', completenessHint: null });
    expect(grade(0.5000001)).toEqual({ relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' });
    expect(grade(1.0)).toEqual({ relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' });
    expect(grade(1.0000001)).toEqual({ relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' });
    expect(grade(2.5)).toEqual({ relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' });
  });

  it('honours custom thresholds', () => {
    const t = { highlyRelevantThreshold: 0.9, referenceThreshold: 0.2 };
    expect(gradeRelevance({ l0MatchCount: 0, l1TopSimilarity: 0.8, hasResults: true }, t)).toEqual({
      relevanceLevel: 'REFERENCE',
      completenessHint: 'PARTIAL',
    });
    expect(gradeRelevance({ l0MatchCount: 0, l1TopSimilarity: 0.2, hasResults: true }, t)).toEqual({
      relevanceLevel: 'REFERENCE',
      completenessHint: 'PARTIAL',
    });
    expect(gradeRelevance({ l0MatchCount: 0, l1TopSimilarity: 0.9, hasResults: true }, t)).toEqual({
      relevanceLevel: 'HIGHLY_RELEVANT',
      completenessHint: null,
    });
  });

  it.each([
    ['PRECISE', true],
    ['HIGHLY_RELEVANT', true],
    ['REFERENCE', false],
  ] as const)('isStrongRelevance(%s) = %p', (level, strong) => {
    expect(isStrongRelevance(level)).toBe(strong);
  });
});

describe('validateNormalizationConfig', () => {
  it('defaults are 2.0 / 0.75 / 0.5', () => {
    expect(DEFAULT_RETRIEVAL_NORMALIZATION).toEqual({ maxL2Distance: 2, highlyRelevantThreshold: 0.75, referenceThreshold: 0.5 });
    expect(validateNormalizationConfig(undefined)).toEqual({ ok: true, value: { maxL2Distance: 2, highlyRelevantThreshold: 0.75, referenceThreshold: 0.5 } });
  });

  it.each([
    [{ maxL2Distance: 1.5 }, { maxL2Distance: 1.5, highlyRelevantThreshold: 0.75, referenceThreshold: 0.5 }],
    [
      { 'max-l2-distance': 4, 'highly-relevant-threshold': 0.8, 'reference-threshold': 0.4 },
      { maxL2Distance: 4, highlyRelevantThreshold: 0.8, referenceThreshold: 0.4 },
    ],
    [{ referenceThreshold: 0.75 }, { maxL2Distance: 2, highlyRelevantThreshold: 0.75, referenceThreshold: 0.75 }],
    [
      { highlyRelevantThreshold: 1, referenceThreshold: 0 },
      { maxL2Distance: 2, highlyRelevantThreshold: 1, referenceThreshold: 0 },
    ],
  ])('accepts %p', (partial, expected) => {
    expect(validateNormalizationConfig(partial)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['not an object', 'x', '', 'invalid_type'],
    ['array', [], '', 'invalid_type'],
    ['unknown key', { foo: 1 }, 'foo', 'unknown_key'],
    ['zero max', { maxL2Distance: 0 }, 'maxL2Distance', 'out_of_range'],
    ['negative max', { maxL2Distance: -2 }, 'maxL2Distance', 'out_of_range'],
    ['string threshold', { referenceThreshold: '0.5' }, 'referenceThreshold', 'invalid_type'],
    ['NaN threshold', { highlyRelevantThreshold: Number.NaN }, 'highlyRelevantThreshold', 'invalid_type'],
    ['threshold > 1', { highlyRelevantThreshold: 1.2 }, 'highlyRelevantThreshold', 'out_of_range'],
    ['threshold < 0', { 'reference-threshold': -0.1 }, 'reference-threshold', 'out_of_range'],
    ['reference above highly relevant', { referenceThreshold: 0.8 }, 'referenceThreshold', 'inconsistent'],
  ])('rejects %s', (_name, partial, field, code) => {
    const result = validateNormalizationConfig(partial);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toContainEqual(expect.objectContaining({ field, code }));
  });

  it('merges onto a tenant base', () => {
    const base = { maxL2Distance: 1, highlyRelevantThreshold: 0.6, referenceThreshold: 0.3 };
    expect(validateNormalizationConfig({ referenceThreshold: 0.2 }, base)).toEqual({ ok: true, value: { ...base, referenceThreshold: 0.2 } });
  });
});
