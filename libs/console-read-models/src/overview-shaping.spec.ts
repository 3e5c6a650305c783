import { describe, expect, it } from '@jest/globals';
import { confidenceHistogram, countsOf, foldDecisionReasons, reliabilityOf } from './overview-shaping.js';

describe('confidenceHistogram', () => {
  it('returns ten bins of width 10, zeros included, without input', () => {
    const bins = confidenceHistogram([]);
    expect(bins).toHaveLength(10);
    expect(bins.map((b) => [b.from, b.to])).toEqual([
      [0, 10],
      [10, 20],
      [20, 30],
      [30, 40],
      [40, 50],
      [50, 60],
      [60, 70],
      [70, 80],
      [80, 90],
      [90, 100],
    ]);
    expect(bins.every((b) => b.count === 0)).toBe(true);
  });

  it.each([
    [[{ bin: 1, count: 3 }], [3, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    [
      [
        { bin: 5, count: 2 },
        { bin: 10, count: 7 },
      ],
      [0, 0, 0, 0, 2, 0, 0, 0, 0, 7],
    ],
    [
      [
        { bin: 3, count: 1 },
        { bin: 3, count: 4 },
      ],
      [0, 0, 5, 0, 0, 0, 0, 0, 0, 0],
    ],
  ])('places %j into the bins', (rows, counts) => {
    expect(confidenceHistogram(rows).map((b) => b.count)).toEqual(counts);
  });

  it.each([0, 11, 2.5])('refuses bin %s', (bin) => {
    expect(() => confidenceHistogram([{ bin, count: 1 }])).toThrow(/outside 1\.\.10/);
  });
});

describe('foldDecisionReasons', () => {
  const known = ['rule_high_confidence', 'no_match'];
  it.each([
    [{}, {}],
    [
      { rule_high_confidence: 2, no_match: 1 },
      { rule_high_confidence: 2, no_match: 1 },
    ],
    [
      { rule_high_confidence: 2, weird: 1, stranger: 3 },
      { rule_high_confidence: 2, other: 4 },
    ],
    [{ no_match: 0, weird: 0 }, {}],
  ])('%j → %j', (raw, folded) => {
    expect(foldDecisionReasons(raw, known)).toEqual(folded);
  });
});

describe('countsOf', () => {
  it('lists every status, zeros included', () => {
    expect(countsOf(['queued', 'running', 'failed'] as const, { failed: 2 })).toEqual({ queued: 0, running: 0, failed: 2 });
  });
});

describe('reliabilityOf', () => {
  it('is null without a calibration', () => {
    expect(reliabilityOf(null)).toBeNull();
  });
  it('pairs the stored knots', () => {
    expect(reliabilityOf({ method: 'isotonic', x: [0.2, 0.8], y: [0.1, 0.9], samples: 40 })).toEqual({
      method: 'isotonic',
      samples: 40,
      points: [
        { x: 0.2, y: 0.1 },
        { x: 0.8, y: 0.9 },
      ],
    });
  });
});
