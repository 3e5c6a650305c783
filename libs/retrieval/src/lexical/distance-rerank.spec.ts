import { rankByDistance } from './distance-rerank.js';

// File paths sort the other way round from the ids, so a tie broken by id would fail the tie cases.
const hit = (documentId: string, chunkIndex: number, distance: number | null, list = 'own') => ({
  documentId,
  filePath: `${String.fromCharCode(219 - documentId.charCodeAt(0))}.md`,
  chunkIndex,
  distance,
  list,
});

describe('rankByDistance (the vector list of a space without ANN search)', () => {
  it.each([
    {
      name: 'orders the chunks of one list by distance',
      lists: [[hit('a', 0, 0.9), hit('b', 0, 0.4), hit('c', 1, 0.7)]],
      limit: 10,
      expected: ['b:0', 'c:1', 'a:0'],
    },
    {
      name: 'leaves out chunks without a vector in the space',
      lists: [[hit('a', 0, null), hit('b', 0, 0.4)]],
      limit: 10,
      expected: ['b:0'],
    },
    {
      name: 'merges the own and the translated list, each chunk once',
      lists: [
        [hit('a', 0, 0.8), hit('b', 0, 0.5)],
        [hit('c', 0, 0.6, 'translated'), hit('a', 0, 0.3, 'translated')],
      ],
      limit: 10,
      expected: ['a:0', 'b:0', 'c:0'],
    },
    {
      name: 'breaks ties by file path (not by id), then chunk, whatever the lists order',
      lists: [[hit('a', 3, 0.5), hit('b', 1, 0.5), hit('b', 0, 0.5)]],
      limit: 10,
      expected: ['b:0', 'b:1', 'a:3'],
    },
    {
      name: 'keeps at most limit chunks, the nearest',
      lists: [[hit('a', 0, 0.9), hit('b', 0, 0.1), hit('c', 0, 0.5)]],
      limit: 2,
      expected: ['b:0', 'c:0'],
    },
    { name: 'no chunks, no list', lists: [[], []], limit: 5, expected: [] },
    { name: 'a limit of 0 keeps nothing', lists: [[hit('a', 0, 0.1)]], limit: 0, expected: [] },
  ])('$name', ({ lists, limit, expected }) => {
    expect(rankByDistance(lists, limit).map((h) => `${h.documentId}:${h.chunkIndex}`)).toEqual(expected);
  });

  it("keeps the nearer of a chunk two lists share, with that list's fields", () => {
    const [first] = rankByDistance([[hit('a', 0, 0.8, 'own')], [hit('a', 0, 0.3, 'translated')]], 5);
    expect(first).toEqual({ documentId: 'a', filePath: 'z.md', chunkIndex: 0, distance: 0.3, list: 'translated' });
  });
});
