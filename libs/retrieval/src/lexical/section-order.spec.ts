import { describe, expect, it } from '@jest/globals';
import { isFileSection, orderSectionsByLexicalEvidence, type SectionOrderCandidate } from './section-order.js';

type Named = SectionOrderCandidate & { name: string };

/** `s:<name>:<share>` a PDF section, `d:<name>` a JSON document, `f:<name>:<share>` an FAQ row of a sheet, `p:` promoted section. */
function candidate(spec: string): Named {
  const [kind, name, share] = spec.split(':');
  const lexicalShare = Number(share ?? 0);
  const base = { name, identifier: 'none' as const, evidence: { lexicalShare } };
  switch (kind) {
    case 's':
      return { ...base, fileName: 'manual.pdf', page: 3, section: ['1 Setup', name] };
    case 'p':
      return { ...base, identifier: 'promote', fileName: 'manual.pdf', page: 9, section: ['2 Alarms', name] };
    case 'f':
      return { ...base, fileName: 'faq.csv', page: null, section: null };
    case 'd':
      return { ...base, fileName: null, page: null, section: null };
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

const order = (specs: string[]) => orderSectionsByLexicalEvidence(specs.map(candidate)).map((c) => c.name);

describe('orderSectionsByLexicalEvidence', () => {
  it.each([
    { name: 'sections by lexical share, best first', given: ['s:a:0.1', 's:b:0.4', 's:c:0.2'], expected: ['b', 'c', 'a'] },
    { name: 'a section without lexical evidence (vector only) after those with it', given: ['s:v:0', 's:l:0.05'], expected: ['l', 'v'] },
    { name: 'equal shares keep the ranking model order', given: ['s:a:0.2', 's:b:0.2', 's:c:0.3'], expected: ['c', 'a', 'b'] },
    { name: 'JSON documents keep their slots', given: ['d:x', 's:a:0.1', 'd:y', 's:b:0.5'], expected: ['x', 'b', 'y', 'a'] },
    { name: 'FAQ rows of a sheet keep their slots', given: ['s:a:0.1', 'f:row:0.9', 's:b:0.3'], expected: ['b', 'row', 'a'] },
    { name: 'a promoted identifier section first whatever its share', given: ['s:a:0.6', 'p:e201:0.2', 's:b:0.4'], expected: ['e201', 'a', 'b'] },
    { name: 'no sections: unchanged', given: ['d:x', 'f:row:0.1', 'd:y'], expected: ['x', 'row', 'y'] },
    { name: 'empty', given: [], expected: [] },
  ])('$name', ({ given, expected }) => {
    expect(order(given)).toEqual(expected);
  });

  it('keeps every candidate object (grades and evidence travel with them)', () => {
    const given = ['s:a:0.1', 'd:x', 's:b:0.4'].map(candidate);
    const out = orderSectionsByLexicalEvidence(given);
    expect(new Set(out)).toEqual(new Set(given));
    expect(out[0]).toBe(given[2]);
  });
});

describe('isFileSection', () => {
  it.each([
    { name: 'a PDF chunk with a heading path', c: { fileName: 'm.pdf', page: 4, section: ['1 Intro'] }, expected: true },
    { name: "a PDF's pages before the first heading", c: { fileName: 'm.pdf', page: 1, section: null }, expected: true },
    { name: 'a DOCX section (no pages)', c: { fileName: 'm.docx', page: null, section: ['Setup'] }, expected: true },
    { name: 'an FAQ row of a sheet', c: { fileName: 'faq.xlsx', page: null, section: null }, expected: false },
    { name: 'a file without headings or pages', c: { fileName: 'notes.txt', page: null, section: [] }, expected: false },
    { name: 'a JSON document', c: { fileName: null, page: null, section: null }, expected: false },
  ])('$name → $expected', ({ c, expected }) => {
    expect(isFileSection(c)).toBe(expected);
  });
});
