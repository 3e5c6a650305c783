import { describe, expect, it } from '@jest/globals';
import {
  applyIdentifierVerdict,
  documentFrequencyOf,
  extractIdentifiers,
  identifierPlace,
  identifierVerdict,
  isRare,
  type IdentifierPlace,
} from './identifiers.js';
import { bm25Idf } from './bm25.js';

describe('extractIdentifiers', () => {
  it.each<[string, string[]]>([
    ['E201 报警怎么处理', ['code:e201']],
    ['机械臂报警E201怎么办', ['code:e201']],
    ['Ｅ２０１ 报警', ['code:e201']], // full-width, NFKC
    ['RV-40E 减速机的润滑脂', ['code:rv-40e']],
    ['rv40e and RV-40E are one part', ['code:rv40e']],
    ['TP-10 示教器黑屏', ['code:tp-10']],
    ['how do I use apt-get to remove a package', ['command:apt-get']],
    ['run `sudo` first', ['command:sudo']],
    ['dpkg-reconfigure tzdata', ['command:dpkg-reconfigure']],
    ["what's new in firmware 2.3.1", ['version:2.3.1']],
    ['upgrade from v1.8 to 2.3', ['version:v1.8', 'version:2.3']],
    ['E050 and E051 both on', ['code:e050', 'code:e051']],
    ['the arm weighs 120 kg in 2024', []],
    ['how long does a refund take', []],
    ['的 了 吗', []],
    ['I/O wiring', []],
    ['', []],
  ])('%s → %j', (query, expected) => {
    expect(extractIdentifiers(query).map((i) => `${i.kind}:${i.text}`)).toEqual(expected);
  });
});

describe('identifierPlace', () => {
  const e201 = extractIdentifiers('E201')[0];
  const rv = extractIdentifiers('RV40E')[0];
  it.each<[string, Parameters<typeof identifierPlace>[0], typeof e201, IdentifierPlace]>([
    ['code in the title', { title: 'E201 伺服过流报警', content: '...' }, e201, 'heading'],
    ['code in a keyword', { title: '伺服过流', keywords: ['e201'], content: '...' }, e201, 'heading'],
    ['code in the section path', { title: 'Manual', section: ['3 Alarms', '3.2 E201 overcurrent'], content: '...' }, e201, 'heading'],
    ['code only in the text', { title: 'Firmware 2.3 release notes', content: 'Fixes: E201 false alarms' }, e201, 'text'],
    ['a longer code is another code', { title: 'E2010 something', content: 'E20 and E2011' }, e201, 'none'],
    ['separators do not matter', { title: 'RV-40E reducer', content: '' }, rv, 'heading'],
    ['absent', { title: 'Refunds', content: 'within 7 days' }, e201, 'none'],
  ])('%s', (_name, fields, id, place) => {
    expect(identifierPlace(fields, id)).toBe(place);
  });
});

describe('rarity', () => {
  it.each<[number, number, boolean]>([
    [1, 23, true],
    [3, 23, true],
    [4, 23, false],
    [0, 23, false], // unknown to the tenant: no document to promote
    [20, 1000, true], // 2 % of a large index
    [21, 1000, false],
  ])('df %d of %d chunks → rare %s', (df, n, rare) => {
    expect(isRare(df, n)).toBe(rare);
  });

  it.each([
    [1, 23],
    [3, 23],
    [17, 500],
    [400, 1000],
  ])('recovers df %d from its BM25 IDF (N = %d)', (df, n) => {
    expect(documentFrequencyOf(bm25Idf(df, n), n)).toBe(df);
  });
});

describe('identifierVerdict (the rule)', () => {
  it.each<[string, IdentifierPlace[], number, boolean, string]>([
    ['code in the title, rest of the question covered → promote', ['heading'], 0.8, true, 'promote'],
    ['the identifier alone → promote', ['heading'], 0, false, 'promote'],
    ['code in the title, nothing else shared → cap', ['heading'], 0.1, true, 'cap'],
    ['code in the title, a quarter of the rest covered → promote', ['heading'], 0.3, true, 'promote'],
    ['code only in the text, a quarter of the rest covered → cap', ['text'], 0.3, true, 'cap'],
    ['code only mentioned in the text, rest covered → none (the calibrated grade stands)', ['text'], 0.9, true, 'none'],
    ['code only mentioned in the text, nothing else shared → cap', ['text'], 0.2, true, 'cap'],
    ['code only mentioned in the text, nothing else asked → none', ['text'], 0, false, 'none'],
    ['one of two codes in the title → promote', ['heading', 'none'], 0.6, true, 'promote'],
    ['document without the code → none', ['none'], 0.9, true, 'none'],
    ['query without identifiers → none', [], 0.9, true, 'none'],
  ])('%s', (_name, places, restCoverage, restHasTerms, verdict) => {
    expect(identifierVerdict({ places, restCoverage, restHasTerms })).toBe(verdict);
  });

  it.each<[number, 'promote' | 'cap' | 'none', number]>([
    [0.2, 'promote', 0.6],
    [0.9, 'promote', 0.9],
    [0.9, 'cap', 0.599],
    [0.3, 'cap', 0.3],
    [0.42, 'none', 0.42],
  ])('p %d, %s (cut 0.6) → %d', (p, verdict, out) => {
    expect(applyIdentifierVerdict(p, verdict, 0.6)).toBeCloseTo(out, 6);
  });
});
