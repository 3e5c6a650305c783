import { describe, expect, it } from '@jest/globals';
import { writeGroups, type WriteSegment } from './write-groups.js';

const seg = (doc: number, first: number, count: number): WriteSegment => ({ doc, first, count });

describe('writeGroups', () => {
  it.each<[string, number[], number, WriteSegment[][]]>([
    ['one document cut into full groups and a last short one', [7], 2, [[seg(0, 0, 2)], [seg(0, 2, 2)], [seg(0, 4, 2)], [seg(0, 6, 1)]]],
    ['one document that fits one group', [3], 100, [[seg(0, 0, 3)]]],
    ['one document of exactly the limit', [4], 4, [[seg(0, 0, 4)]]],
    [
      'small documents share a group; a group ends one document and starts the next',
      [1, 1, 3],
      2,
      [[seg(0, 0, 1), seg(1, 0, 1)], [seg(2, 0, 2)], [seg(2, 2, 1)]],
    ],
    ['a document across two groups after another', [3, 4], 5, [[seg(0, 0, 3), seg(1, 0, 2)], [seg(1, 2, 2)]]],
    ['documents without chunks make no segment', [0, 2, 0], 5, [[seg(1, 0, 2)]]],
    ['no documents, no groups', [], 5, []],
  ])('%s', (_name, counts, limit, expected) => {
    expect(writeGroups(counts, limit)).toEqual(expected);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => writeGroups([3], 0)).toThrow(RangeError);
    expect(() => writeGroups([3], 1.5)).toThrow(RangeError);
  });
});
