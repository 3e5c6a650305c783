import { describe, expect, it } from '@jest/globals';
import { reciprocalRankFusion } from './fusion.js';

describe('weighted reciprocal rank fusion', () => {
  it.each([
    {
      name: 'a document first in both lists wins',
      lists: [
        { name: 'lexical', weight: 1, ids: ['a', 'b'] },
        { name: 'vector', weight: 1, ids: ['a', 'c'] },
      ],
      order: ['a', 'b', 'c'],
      top: 2 / 61,
    },
    {
      name: 'agreement beats one first place',
      lists: [
        { name: 'lexical', weight: 1, ids: ['x', 'y'] },
        { name: 'vector', weight: 1, ids: ['z', 'y'] },
      ],
      order: ['y', 'x', 'z'],
      top: 2 / 62,
    },
    {
      name: 'weights scale a list',
      lists: [
        { name: 'lexical', weight: 3, ids: ['x'] },
        { name: 'vector', weight: 1, ids: ['z'] },
      ],
      order: ['x', 'z'],
      top: 3 / 61,
    },
    {
      name: 'repeats within a list count once (the first rank)',
      lists: [{ name: 'vector', weight: 1, ids: ['a', 'a', 'b'] }],
      order: ['a', 'b'],
      top: 1 / 61,
    },
    {
      name: 'ties keep the order of first appearance',
      lists: [
        { name: 'lexical', weight: 1, ids: ['p'] },
        { name: 'vector', weight: 1, ids: ['q'] },
      ],
      order: ['p', 'q'],
      top: 1 / 61,
    },
    { name: 'a zero-weight list only contributes candidates', lists: [{ name: 'exact', weight: 0, ids: ['e'] }], order: ['e'], top: 0 },
  ])('$name', ({ lists, order, top }) => {
    const fused = reciprocalRankFusion(lists);
    expect(fused.map((f) => f.id)).toEqual(order);
    expect(fused[0].score).toBeCloseTo(top, 12);
  });

  it('records each list rank and honours k', () => {
    const fused = reciprocalRankFusion(
      [
        { name: 'lexical', weight: 1, ids: ['a', 'b'] },
        { name: 'vector', weight: 1, ids: ['b'] },
      ],
      0,
    );
    expect(fused).toEqual([
      { id: 'b', score: 1 / 2 + 1, ranks: { lexical: 2, vector: 1 } },
      { id: 'a', score: 1, ranks: { lexical: 1 } },
    ]);
    expect(() => reciprocalRankFusion([], -1)).toThrow(RangeError);
  });
});
