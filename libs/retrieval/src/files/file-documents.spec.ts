import { describe, expect, it } from '@jest/globals';
import type { ExtractedDocument } from '@arbiter/documents';
import { documentsFromFile, sheetRowPath, titleFromFileName } from './file-documents.js';

const form = { domain: 'manuals', keywords: ['tp10'], metadata: { lang: 'en' } };
const doc = (over: Partial<ExtractedDocument>): ExtractedDocument => ({
  kind: 'pdf',
  mediaType: 'application/pdf',
  title: null,
  blocks: [],
  faqRows: [],
  warnings: [],
  ...over,
});

describe('documentsFromFile', () => {
  it('makes one document of a text file, titled by the file when it names none, chunks located by page and section', () => {
    const drafts = documentsFromFile(
      doc({
        blocks: [
          { kind: 'heading', text: '1 Setup', level: 1, page: 1 },
          { kind: 'paragraph', text: 'Plug the pendant in.', page: 1 },
          { kind: 'heading', text: '1.1 Editors', level: 2, page: 2 },
          { kind: 'paragraph', text: 'Choose an editor.', page: 2, pageEnd: 3 },
        ],
      }),
      'manual.v2.pdf',
      form,
      512,
    );
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({ filePath: 'manual.v2.pdf', title: 'manual.v2', keywords: ['tp10'] });
    expect(drafts[0]!.content).toBe('1 Setup\n\nPlug the pendant in.\n\n1.1 Editors\n\nChoose an editor.');
    expect(drafts[0]!.chunks).toEqual([
      { content: '1 Setup\n\nPlug the pendant in.', page: 1, pageEnd: 1, section: ['1 Setup'] },
      { content: '1.1 Editors\n\nChoose an editor.', page: 2, pageEnd: 3, section: ['1 Setup', '1.1 Editors'] },
    ]);
  });

  it.each([
    { what: "the file's own title", title: 'Debian Reference', expected: 'Debian Reference' },
    { what: 'a blank title: the file name', title: '   ', expected: 'manual.v2' },
    { what: 'a title over 500 characters: clipped', title: 'x'.repeat(600), expected: 'x'.repeat(500) },
  ])('titles by $what', ({ title, expected }) => {
    const [draft] = documentsFromFile(doc({ title, blocks: [{ kind: 'paragraph', text: 'Body.' }] }), 'manual.v2.pdf', form, 512);
    expect(draft!.title).toBe(expected);
  });

  it('leaves out location a chunk does not have (no page outside PDFs, no section before the first heading)', () => {
    const [draft] = documentsFromFile(doc({ kind: 'markdown', blocks: [{ kind: 'paragraph', text: 'No heading yet.' }] }), 'notes.md', form, 512);
    expect(draft!.chunks).toEqual([{ content: 'No heading yet.' }]);
  });

  it('makes one document per FAQ row: question as title, similar questions added to the keywords, long answers split', () => {
    const drafts = documentsFromFile(
      doc({
        kind: 'csv',
        faqRows: [
          { row: 2, question: ' 如何开票？ ', answer: '在账户页申请。', similar: ['开发票', ' tp10 ', ''] },
          { row: 3, question: 'Warranty?', answer: `${'Two years. '.repeat(60)}`, similar: [] },
        ],
      }),
      'faq.csv',
      form,
      200,
    );
    expect(drafts.map((d) => [d.filePath, d.title, d.keywords])).toEqual([
      ['faq.csv#2', '如何开票？', ['tp10', '开发票']],
      ['faq.csv#3', 'Warranty?', ['tp10']],
    ]);
    expect(drafts[0]!.chunks).toEqual([{ content: '在账户页申请。' }]);
    expect(drafts[1]!.chunks.length).toBeGreaterThan(1);
    expect(drafts[1]!.chunks.every((c) => c.content.length <= 200 && c.page === undefined)).toBe(true);
  });
});

describe('file names', () => {
  it.each([
    ['manual.pdf', 'manual'],
    ['.bashrc', '.bashrc'],
    ['说明书.docx', '说明书'],
    ['no-extension', 'no-extension'],
  ])('titleFromFileName(%s) = %s', (name, title) => expect(titleFromFileName(name)).toBe(title));
  it('names a sheet row by file and row', () => expect(sheetRowPath('faq.xlsx', 7)).toBe('faq.xlsx#7'));
});
