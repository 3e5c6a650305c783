import { describe, expect, it } from '@jest/globals';
import { exactHits } from './hybrid.js';

const hit = (documentId: string, title: string, keywords: string[] = []) => ({
  documentId,
  filePath: `${documentId}.md`,
  title,
  domain: 'd',
  content: 'c',
  distance: 0.5,
  keywords,
});

describe('exact (L0) hits among the candidates', () => {
  it.each([
    { name: 'title in the query', query: '请问 E201 伺服过流报警 怎么办', candidates: [hit('a', 'E201 伺服过流报警')], ids: ['a'] },
    { name: 'keyword, case-insensitive', query: 'My INVOICE is wrong', candidates: [hit('a', 'Billing', ['invoice'])], ids: ['a'] },
    { name: 'one-character keywords never hit', query: 'a b c', candidates: [hit('a', 'Title', ['a'])], ids: [] },
    { name: 'no overlap, no hit', query: 'reset the arm', candidates: [hit('a', 'Invoices', ['invoice'])], ids: [] },
    {
      name: 'a document counts once, in candidate order',
      query: 'E201 and E202',
      candidates: [hit('b', 'x', ['E202']), hit('a', 'y', ['E201']), hit('b', 'x', ['E202'])],
      ids: ['b', 'a'],
    },
  ])('$name', ({ query, candidates, ids }) => {
    expect(exactHits(query, candidates).map((h) => h.documentId)).toEqual(ids);
  });
});
