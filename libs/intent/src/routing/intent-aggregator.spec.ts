import { describe, expect, it } from '@jest/globals';
import { IntentAggregator, type SimilarityAggregation } from './intent-aggregator.js';
import { InvertedIndex } from './inverted-index.js';

describe('IntentAggregator', () => {
  // intent 0 has 4 examples with similarities 0.9, 0.6, 0.3 (+1 untouched); intent 1 has 2 examples, one at 0.8
  const build = (): IntentAggregator => {
    const agg = new IntentAggregator(Int32Array.from([4, 2]), 2);
    agg.add(0, 10, 0.3);
    agg.add(0, 11, 0.9);
    agg.add(0, 12, 0.6);
    agg.add(1, 20, 0.8);
    agg.add(1, 21, -0.5);
    return agg;
  };
  const rows: [SimilarityAggregation, number, number][] = [
    ['mean', 1.8 / 4, 0.8 / 2],
    ['max', 0.9, 0.8],
    ['topk_mean', (0.9 + 0.6) / 2, 0.8 / 2],
    ['centroid_knn', 0.5 * 0.5 + 0.5 * 0.75, 0.5 * 0 + 0.5 * 0.4],
  ];
  it.each(rows)('%s', (aggregation, a, b) => {
    const s = build().scores(aggregation, Float32Array.from([0.5, -0.2]));
    expect(s[0]).toBeCloseTo(a, 5);
    expect(s[1]).toBeCloseTo(b, 5);
  });

  it('tracks the nearest example per intent and ignores non-positive similarities', () => {
    const agg = build();
    expect(Array.from(agg.nearest)).toEqual([11, 20]);
    expect(agg.nearestSim[0]).toBeCloseTo(0.9, 6);
  });

  it('clamps to [0, 1]', () => {
    const agg = new IntentAggregator(Int32Array.from([1]), 1);
    agg.add(0, 0, 1.3);
    expect(agg.scores('max')[0]).toBe(1);
  });
});

describe('InvertedIndex', () => {
  // rows: 0 = {1: 1}, 1 = {1: 0.5, 2: 0.5}, 2 = {2: 1}, 3 = {1: 0.2}
  const index = InvertedIndex.fromRows(
    { offsets: Int32Array.from([0, 1, 3, 4, 5]), idx: Int32Array.from([1, 1, 2, 2, 1]), val: Float32Array.from([1, 0.5, 0.5, 1, 0.2]) },
    4,
  );
  const q = { idx: Int32Array.from([1]), val: Float32Array.from([1]) };

  it('visits every row sharing a feature exactly once, and resets its scratch', () => {
    for (let round = 0; round < 2; round++) {
      const seen: [number, number][] = [];
      index.forEachDot(q, (row, dot) => seen.push([row, dot]));
      expect(seen.sort((a, b) => a[0] - b[0])).toEqual([
        [0, 1],
        [1, 0.5],
        [3, expect.closeTo(0.2, 6) as unknown as number],
      ]);
    }
  });

  it('computes dense dot products and the best row inside a range', () => {
    expect(Array.from(index.dotAll(q)).map((x) => Math.round(x * 10) / 10)).toEqual([1, 0.5, 0, 0.2]);
    expect(index.bestInRange(q, 1, 4)).toEqual({ row: 1, dot: 0.5 });
    expect(index.bestInRange(q, 2, 3)).toEqual({ row: -1, dot: 0 });
  });
});
