import { describe, expect, it } from '@jest/globals';
import { coverageSeries, histogramBars, jobProgress, reasonSlices, reliabilityLine } from './chart-data';

describe('coverageSeries', () => {
  it('lists every day of the window and leaves days without evaluations as gaps, not 0 %', () => {
    const series = coverageSeries(
      [
        { date: '2026-11-02', evaluated: 4, covered: 3, rate: 0.75 },
        { date: '2026-11-04', evaluated: 0, covered: 0, rate: null },
      ],
      '2026-11-01',
      '2026-11-04',
    );
    expect(series).toEqual({
      dates: ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'],
      ratePercent: [null, 75, null, null],
      evaluated: [0, 4, 0, 0],
    });
  });

  it('gives nothing for an unparsable window', () => {
    expect(coverageSeries([], 'x', '2026-11-01').dates).toEqual([]);
  });
});

describe('reasonSlices', () => {
  it('drops zero reasons and orders by count, then name', () => {
    expect(reasonSlices({ no_match: 2, llm_judge: 0, fusion_fallback: 5, rule_high_confidence: 2 })).toEqual([
      { name: 'fusion_fallback', value: 5 },
      { name: 'no_match', value: 2 },
      { name: 'rule_high_confidence', value: 2 },
    ]);
  });
});

describe('histogramBars', () => {
  it.each([
    [
      [
        { from: 10, to: 20, count: 1 },
        { from: 0, to: 10, count: 3 },
      ],
      ['0–10', '10–20'],
      [3, 1],
    ],
    [[{ from: 0, to: 0.5, count: 2 }], ['0–0.5'], [2]],
    [[], [], []],
  ])('%j → labels %j counts %j', (bins, labels, counts) => {
    expect(histogramBars(bins)).toEqual({ labels, counts });
  });
});

describe('reliabilityLine', () => {
  it('draws the knots in x order, clamped to [0, 1], next to the diagonal', () => {
    expect(
      reliabilityLine([
        { x: 0.85, y: 0.8 },
        { x: 0.15, y: -0.01 },
        { x: 0.45, y: 0.51234 },
      ]),
    ).toEqual({
      observed: [
        [0.15, 0],
        [0.45, 0.512],
        [0.85, 0.8],
      ],
      ideal: [
        [0, 0],
        [1, 1],
      ],
    });
  });
});

describe('jobProgress', () => {
  it.each([
    [5, 10, 0.5],
    [15, 10, 1],
    [3, null, null],
    [3, 0, null],
    [0, undefined, null],
  ])('processed %p of %p → %p', (processed, total, expected) => {
    expect(jobProgress(processed, total)).toBe(expected);
  });
});
