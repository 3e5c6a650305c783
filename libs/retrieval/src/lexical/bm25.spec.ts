import { describe, expect, it } from '@jest/globals';
import { bm25Idf, bm25Impact, bm25MaxScore, chunkPostings, DEFAULT_BM25 } from './bm25.js';

describe('BM25 (k1 = 1.2, b = 0.75)', () => {
  // impact = tf·(k1+1) / (tf + k1·(1 − b + b·len/avg))
  it.each([
    { tf: 1, len: 10, avg: 10, impact: 1 }, // 2.2 / (1 + 1.2)
    { tf: 2, len: 10, avg: 10, impact: 4.4 / 3.2 },
    { tf: 1, len: 20, avg: 10, impact: 2.2 / (1 + 1.2 * 1.75) }, // longer than average: lower
    { tf: 1, len: 5, avg: 10, impact: 2.2 / (1 + 1.2 * 0.625) }, // shorter: higher
    { tf: 0, len: 10, avg: 10, impact: 0 },
    { tf: 1, len: 10, avg: 0, impact: 1 }, // no corpus average yet: the chunk's own length stands in
  ])('impact(tf=$tf, len=$len, avg=$avg) = $impact', ({ tf, len, avg, impact }) => {
    expect(bm25Impact(tf, len, avg)).toBeCloseTo(impact, 10);
  });

  it('saturates: the impact never reaches k1 + 1', () => {
    expect(bm25Impact(1000, 10, 10)).toBeLessThan(DEFAULT_BM25.k1 + 1);
    expect(bm25Impact(1000, 10, 10)).toBeGreaterThan(2.19);
  });

  // idf = ln(1 + (N − df + 0.5)/(df + 0.5))
  it.each([
    { df: 1, n: 100, idf: Math.log(1 + 99.5 / 1.5) },
    { df: 50, n: 100, idf: Math.log(1 + 50.5 / 50.5) },
    { df: 100, n: 100, idf: Math.log(1 + 0.5 / 100.5) }, // in every chunk: near zero, never negative
    { df: 0, n: 100, idf: Math.log(1 + 100.5 / 0.5) }, // unseen term: the largest
    { df: 5, n: 3, idf: Math.log(1 + 0.5 / 5.5) }, // stale statistics (df > N) clamp N
  ])('idf(df=$df, N=$n) = $idf', ({ df, n, idf }) => {
    expect(bm25Idf(df, n)).toBeCloseTo(idf, 10);
  });

  it('max score is every term at saturation', () => {
    expect(bm25MaxScore([1, 2])).toBeCloseTo(3 * 2.2, 10);
    expect(bm25MaxScore([])).toBe(0);
  });

  it('postings carry the field-weighted tf and its impact', () => {
    const postings = chunkPostings(
      new Map([
        ['reset', 3],
        ['arm', 1],
      ]),
      10,
      10,
    );
    expect(postings).toEqual([
      { term: 'reset', tf: 3, impact: expect.closeTo((3 * 2.2) / (3 + 1.2), 10) },
      { term: 'arm', tf: 1, impact: expect.closeTo(1, 10) },
    ]);
  });
});
