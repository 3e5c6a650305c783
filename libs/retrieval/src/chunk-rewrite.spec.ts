import { chunkTextHash, keepsChunkRows, rewrittenChunkIndexes, rewrittenChunkPairs, type StoredDocumentState } from './chunk-rewrite.js';

describe('keepsChunkRows', () => {
  const stored: StoredDocumentState = { writing: false, lexicalVersion: 3, title: 'Manual', keywords: ['arm', 'servo'], domain: 'robots' };
  const next = { title: 'Manual', keywords: ['arm', 'servo'], domain: 'robots' };
  it.each([
    { name: 'the same heading, domain and analyzer', stored, next, version: 3, expected: true },
    { name: 'a document still being written', stored: { ...stored, writing: true }, next, version: 3, expected: false },
    { name: 'postings of another analyzer version', stored, next, version: 4, expected: false },
    { name: 'not indexed yet', stored: { ...stored, lexicalVersion: 0 }, next, version: 3, expected: false },
    { name: 'a new title', stored, next: { ...next, title: 'Manual v2' }, version: 3, expected: false },
    { name: 'a new domain', stored, next: { ...next, domain: 'arms' }, version: 3, expected: false },
    { name: 'a keyword added', stored, next: { ...next, keywords: ['arm', 'servo', 'e201'] }, version: 3, expected: false },
    { name: 'keywords reordered (indexed in order)', stored, next: { ...next, keywords: ['servo', 'arm'] }, version: 3, expected: false },
  ])('$name → $expected', ({ stored: s, next: n, version, expected }) => {
    expect(keepsChunkRows(s, n, version)).toBe(expected);
  });
});

describe('rewrittenChunkIndexes', () => {
  it.each([
    { name: 'nothing kept: every new index', kept: [], newCount: 3, oldCount: 3, expected: [0, 1, 2] },
    { name: 'all kept, same length: none', kept: [0, 1, 2], newCount: 3, oldCount: 3, expected: [] },
    { name: 'one changed in the middle', kept: [0, 2], newCount: 3, oldCount: 3, expected: [1] },
    { name: 'the new version shorter: the old tail goes', kept: [0, 1], newCount: 2, oldCount: 5, expected: [2, 3, 4] },
    { name: 'the new version longer: the new tail is written', kept: [0, 1, 2], newCount: 5, oldCount: 3, expected: [3, 4] },
    { name: 'a new document (no old chunks)', kept: [], newCount: 2, oldCount: 0, expected: [0, 1] },
  ])('$name', ({ kept, newCount, oldCount, expected }) => {
    expect(rewrittenChunkIndexes(new Set(kept), newCount, oldCount)).toEqual(expected);
  });
});

describe('rewrittenChunkPairs', () => {
  it("lists each document's rewritten indices as (document, index) pairs; none for an empty map", () => {
    const rewritten = new Map([
      ['doc-a', new Set([1, 4])],
      ['doc-b', new Set([0])],
      ['doc-c', new Set<number>()],
    ]);
    expect(rewrittenChunkPairs(rewritten)).toEqual([
      { documentId: 'doc-a', index: 1 },
      { documentId: 'doc-a', index: 4 },
      { documentId: 'doc-b', index: 0 },
    ]);
    expect(rewrittenChunkPairs(new Map())).toEqual([]);
  });
});

describe('chunkTextHash', () => {
  it('is the hex MD5 of the UTF-8 text, as PostgreSQL md5(text) gives it', () => {
    // What `SELECT md5('')`, `md5('急停')` and `md5('abc')` print on PostgreSQL 15.
    expect(chunkTextHash('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(chunkTextHash('急停')).toBe('1debe38e323bab6dfbbd5888eb9371ab');
    expect(chunkTextHash('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
  });
});
