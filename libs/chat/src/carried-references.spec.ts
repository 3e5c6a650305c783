import { describe, expect, it } from '@jest/globals';
import { carriedReferences } from './carried-references.js';

const doc = (filePath: string, similarity: number) => ({ documentId: `id-${filePath}`, filePath, title: `T ${filePath}`, similarity });

describe('carriedReferences: an "already provided" reply keeps the references it points back to', () => {
  it('takes the reference the earlier turn stored (its score, documentId, title)', () => {
    const earlier = new Map([['a.md', { documentId: 'doc-a', filePath: 'a.md', title: 'A', score: 0.91 }]]);
    expect(carriedReferences([doc('a.md', 0.6)], earlier)).toEqual([{ documentId: 'doc-a', filePath: 'a.md', title: 'A', score: 0.91 }]);
  });

  it('falls back to the lookup result when the earlier reference lacks a field or is unknown', () => {
    const earlier = new Map([['a.md', { filePath: 'a.md', score: 0.8 }]]);
    expect(carriedReferences([doc('b.md', 0.55555), doc('a.md', 0.6)], earlier)).toEqual([
      { documentId: 'id-a.md', filePath: 'a.md', title: 'T a.md', score: 0.8 },
      { documentId: 'id-b.md', filePath: 'b.md', title: 'T b.md', score: 0.5556 },
    ]);
  });

  it('lists each document once and nothing when nothing was withheld', () => {
    expect(carriedReferences([doc('a.md', 0.7), doc('a.md', 0.9)], new Map())).toHaveLength(1);
    expect(carriedReferences([], new Map([['a.md', { filePath: 'a.md', score: 1 }]]))).toEqual([]);
  });
});
