import { describe, expect, it } from '@jest/globals';
import { answersLabel, labelsLocation, type LabelledCandidateLocation } from './label-match.js';

const section = (page: number | null, pageEnd: number | null, path: string[] | null, filePath = 'manual.pdf'): LabelledCandidateLocation => ({
  filePath,
  page,
  pageEnd,
  section: path,
});

describe('answersLabel', () => {
  it.each([
    { name: 'a JSON document by its path', c: section(null, null, null, 'faq/a.md'), label: { filePath: 'faq/a.md' }, expected: true },
    { name: 'another document', c: section(null, null, null, 'faq/b.md'), label: { filePath: 'faq/a.md' }, expected: false },
    { name: 'a section on a labelled page', c: section(48, 48, ['1', '1.4']), label: { filePath: 'manual.pdf', pages: [48] }, expected: true },
    { name: 'a section spanning a labelled page', c: section(47, 49, ['1']), label: { filePath: 'manual.pdf', pages: [48] }, expected: true },
    { name: 'any of several labelled pages', c: section(120, 120, ['4']), label: { filePath: 'manual.pdf', pages: [33, 120] }, expected: true },
    { name: 'a section on another page', c: section(50, 51, ['1']), label: { filePath: 'manual.pdf', pages: [48] }, expected: false },
    { name: 'a page label and a candidate without pages', c: section(null, null, ['1']), label: { filePath: 'manual.docx', pages: [2] }, expected: false },
    { name: 'pageEnd absent: the first page only', c: section(48, null, ['1']), label: { filePath: 'manual.pdf', pages: [49] }, expected: false },
    {
      name: 'the same file name, pages right, another file',
      c: section(48, 48, ['1'], 'other.pdf'),
      label: { filePath: 'manual.pdf', pages: [48] },
      expected: false,
    },
    {
      name: 'a section by its path',
      c: section(48, 48, ['1 Start', '1.4 Editors']),
      label: { filePath: 'manual.pdf', section: ['1 Start', '1.4 Editors'] },
      expected: true,
    },
    {
      name: 'a subsection of the labelled section',
      c: section(48, 48, ['1 Start', '1.4 Editors', '1.4.7 Default']),
      label: { filePath: 'manual.pdf', section: ['1 Start', '1.4 Editors'] },
      expected: true,
    },
    {
      name: 'the parent of the labelled section',
      c: section(48, 48, ['1 Start']),
      label: { filePath: 'manual.pdf', section: ['1 Start', '1.4 Editors'] },
      expected: false,
    },
    {
      name: 'a sibling section',
      c: section(48, 48, ['1 Start', '1.5 Shells']),
      label: { filePath: 'manual.pdf', section: ['1 Start', '1.4 Editors'] },
      expected: false,
    },
    {
      name: 'headings compared with spaces and widths folded',
      c: section(1, 1, ['第１章  安装']),
      label: { filePath: 'manual.pdf', section: ['第1章 安装'] },
      expected: true,
    },
    {
      name: 'pages and section both must hold',
      c: section(48, 48, ['1 Start', '1.5 Shells']),
      label: { filePath: 'manual.pdf', pages: [48], section: ['1 Start', '1.4 Editors'] },
      expected: false,
    },
    { name: 'no section on the candidate', c: section(3, 3, null), label: { filePath: 'manual.pdf', section: ['1 Start'] }, expected: false },
  ])('$name → $expected', ({ c, label, expected }) => {
    expect(answersLabel(c, label)).toBe(expected);
  });
});

describe('labelsLocation', () => {
  it.each([
    { label: {}, expected: false },
    { label: { pages: [], section: [] }, expected: false },
    { label: { pages: [3] }, expected: true },
    { label: { section: ['1 Start'] }, expected: true },
  ])('$label → $expected', ({ label, expected }) => {
    expect(labelsLocation(label)).toBe(expected);
  });
});
