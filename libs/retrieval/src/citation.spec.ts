import { describe, expect, it } from '@jest/globals';
import { describeLocation } from './citation.js';

describe('describeLocation: how an answer names where a result came from', () => {
  it.each([
    { name: 'a JSON document: its file path', r: { filePath: 'faq/reset.md' }, text: 'faq/reset.md' },
    { name: 'a JSON document with null location fields', r: { filePath: 'faq/reset.md', fileName: null, page: null, section: null }, text: 'faq/reset.md' },
    {
      name: 'a PDF page and section',
      r: { filePath: 'Manual.pdf', fileName: 'Manual.pdf', page: 48, pageEnd: 48, section: ['1 Getting started', '1.4.7 Setting a default editor'] },
      text: 'Manual.pdf, p. 48, § 1.4.7 Setting a default editor',
    },
    { name: 'pages spanned', r: { filePath: 'Manual.pdf', fileName: 'Manual.pdf', page: 48, pageEnd: 49, section: null }, text: 'Manual.pdf, pp. 48–49' },
    { name: 'a Markdown file: section only', r: { filePath: 'guide.md', fileName: 'guide.md', page: null, section: ['Install'] }, text: 'guide.md, § Install' },
  ])('$name', ({ r, text }) => {
    expect(describeLocation(r)).toBe(text);
  });
});
