import { describe, expect, it } from '@jest/globals';
import { appendChunks, pageSpan, replaceChunk, sectionPath } from './chunk-location';

describe('chunk location', () => {
  it.each([
    [12, 13, { kind: 'range', from: 12, to: 13 }],
    [12, 12, { kind: 'page', page: 12 }],
    [12, null, { kind: 'page', page: 12 }],
    [12, 11, { kind: 'page', page: 12 }],
    [1, 300, { kind: 'range', from: 1, to: 300 }],
    [null, null, { kind: 'none' }],
    [null, 4, { kind: 'none' }],
    [0, 2, { kind: 'none' }],
    [2.5, 3, { kind: 'none' }],
    [undefined, undefined, { kind: 'none' }],
  ])('pageSpan(%p, %p) = %p', (page, pageEnd, span) => expect(pageSpan(page, pageEnd)).toEqual(span));

  it.each([
    [['1 Basics', '1.4 Editors'], '1 Basics › 1.4 Editors'],
    [['第一章 基础'], '第一章 基础'],
    [['1 Basics', '  ', '1.4.7 Setting a default editor '], '1 Basics › 1.4.7 Setting a default editor'],
    [[], null],
    [['  '], null],
    [null, null],
  ])('sectionPath(%p) = %p', (section, text) => expect(sectionPath(section)).toBe(text));

  const chunk = (chunkIndex: number, content = `c${chunkIndex}`) => ({ chunkIndex, content });

  it('appends the next page in document order, each chunk once', () => {
    expect(appendChunks([chunk(0), chunk(1)], [chunk(2), chunk(3)]).map((c) => c.chunkIndex)).toEqual([0, 1, 2, 3]);
    expect(appendChunks([chunk(0), chunk(1, 'old')], [chunk(1, 'new'), chunk(2)])).toEqual([chunk(0), chunk(1, 'new'), chunk(2)]);
    expect(appendChunks([], [chunk(5), chunk(4)]).map((c) => c.chunkIndex)).toEqual([4, 5]);
  });

  it("replaces the edited chunk by the API's answer and leaves the others", () => {
    expect(replaceChunk([chunk(0), chunk(1), chunk(2)], chunk(1, 'edited'))).toEqual([chunk(0), chunk(1, 'edited'), chunk(2)]);
    expect(replaceChunk([chunk(0)], chunk(9))).toEqual([chunk(0)]);
  });
});
