import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { zipWith } from '../../../test/support/zip.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, type ExtractionLimits } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';
import { extractDocument } from './extract-document.js';
import { sniffDocument } from './sniff.js';

// Real files made by other tools (test-fixtures/README.md names their sources and licences).
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../test-fixtures/${name}`, import.meta.url)));
const limits: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS };

const headings = (doc: ExtractedDocument): string[] => doc.blocks.filter((b) => b.kind === 'heading').map((b) => `${b.level ?? 0} ${b.text}`);
const allText = (doc: ExtractedDocument): string => doc.blocks.map((b) => b.text).join('\n');

describe('extractDocument: real files', () => {
  it('HTML manual page (debian-reference ch08): main content, navigation dropped, headings kept', async () => {
    const doc = await extractDocument(fixture('debian-reference-ch08.en.html'), 'ch08.html', limits);
    expect(doc.kind).toBe('html');
    expect(doc.title).toBe('Chapter 8. I18N and L10N');
    expect(headings(doc)).toEqual(expect.arrayContaining(['2 8.1. The locale', '3 8.1.1. Rationale for UTF-8 locale', '2 8.2. The keyboard input']));
    const text = allText(doc);
    expect(text).toContain('The behavior of programs supporting internationalization are configured by the environment variable');
    // The navigation footer's links to the neighbouring chapters and its table of contents are not content.
    expect(text).not.toContain('Chapter 7. GUI System');
    expect(text).not.toContain('Chapter 9. System tips');
    expect(text).not.toContain('Table of Contents');
    expect(doc.blocks.some((b) => b.kind === 'code' && b.text.includes('dpkg-reconfigure locales'))).toBe(true);
    expect(doc.blocks.some((b) => b.kind === 'list' && b.text.startsWith('1. Select all required locale data'))).toBe(true);
  });

  it('the same page as DOCX (LibreOffice): heading levels survive', async () => {
    const doc = await extractDocument(fixture('debian-reference-ch08.en.docx'), 'ch08.docx', limits);
    expect(doc.kind).toBe('docx');
    expect(doc.title).toBe('Chapter 8. I18N and L10N');
    expect(headings(doc)).toEqual(
      expect.arrayContaining(['1 Chapter 8. I18N and L10N', '2 8.1. The locale', '3 8.1.1. Rationale for UTF-8 locale', '2 8.2. The keyboard input']),
    );
    expect(doc.blocks.some((b) => b.kind === 'table' && b.text.includes('| --- |'))).toBe(true);
  });

  it('Markdown (debian-reference README.md): headings, lists, code', async () => {
    const doc = await extractDocument(fixture('debian-reference-README.md'), 'README.md', limits);
    expect(doc.kind).toBe('markdown');
    expect(doc.title).toBe('debian-reference (Version 2 series)');
    expect(headings(doc)).toEqual(expect.arrayContaining(['2 Package status', '2 Bug report']));
    expect(doc.blocks).toContainEqual({ kind: 'code', text: ' $ reportbug --src debian-reference' });
    expect(doc.blocks.some((b) => b.kind === 'list' && b.text.startsWith('- https://bugs.debian.org/src:debian-reference'))).toBe(true);
  });

  it('GB18030 Chinese text (debian-reference zh-cn, iconv): detected and decoded', async () => {
    const doc = await extractDocument(fixture('debian-reference-ch08.zh-cn.gb18030.txt'), 'zh.txt', limits);
    expect(doc.kind).toBe('text');
    expect(allText(doc)).toContain('国际化和本地化');
    expect(allText(doc)).toContain('UTF-8 语言环境的基本原理');
    expect(allText(doc)).not.toContain('\ufffd');
    expect(doc.blocks.length).toBeGreaterThan(5);
  });

  it('a PDF (LibreOffice) named .txt is read as a PDF', async () => {
    const doc = await extractDocument(fixture('libreoffice-tiny.pdf'), 'notes.txt', limits);
    expect(doc.kind).toBe('pdf');
    expect(doc.mediaType).toBe('application/pdf');
    expect(allText(doc)).toContain('Arbiter sniffing fixture.');
    expect(doc.blocks[0]?.page).toBe(1);
  });

  it('HTML named .pdf is read as HTML, not handed to the PDF parser', async () => {
    const doc = await extractDocument(fixture('debian-reference-ch08.en.html'), 'manual.pdf', limits);
    expect(doc.kind).toBe('html');
  });

  const zhRows = [
    { row: 2, question: '如何重置密码？', answer: '在登录页点击“忘记密码”，按邮件中的链接设置新密码。', similar: ['忘记密码怎么办', '密码找不回来'] },
    { row: 3, question: '发票怎么开？', answer: '在订单详情页点击“申请发票”，填写抬头和税号后提交。', similar: ['开发票', '申请发票'] },
    { row: 5, question: '退款多久到账？', answer: '原路退回，一般 3 到 5 个工作日到账。', similar: [] },
  ];
  it.each([
    { file: 'faq-zh.csv', kind: 'csv', rows: zhRows },
    { file: 'faq-zh.xlsx', kind: 'xlsx', rows: zhRows },
    {
      file: 'faq-en.csv',
      kind: 'csv',
      rows: [
        {
          row: 2,
          question: 'How do I reset my password?',
          answer: 'Click "Forgot password" on the sign-in page and follow the link in the email.',
          similar: ['forgot password', "can't sign in"],
        },
        {
          row: 3,
          question: 'How long does a refund take?',
          answer: 'Refunds go back to the original payment method\nwithin 3 to 5 business days.',
          similar: ['refund time'],
        },
      ],
    },
  ])('FAQ sheet $file', async ({ file, kind, rows }) => {
    const doc = await extractDocument(fixture(file), file, limits);
    expect(doc.kind).toBe(kind);
    expect(doc.faqRows).toEqual(rows);
  });
});

const code = async (bytes: Uint8Array, name: string, l: ExtractionLimits = limits): Promise<string> => {
  try {
    await extractDocument(bytes, name, l);
    return 'ok';
  } catch (e) {
    return e instanceof ExtractionError ? e.code : 'not an ExtractionError';
  }
};

describe('extractDocument: refusals', () => {
  const docxXml = new TextEncoder().encode('<w:document/>');
  it.each([
    { what: 'an empty file', bytes: new Uint8Array(0), name: 'a.docx', expected: ExtractionErrorCode.EmptyFile },
    { what: 'a PNG (debian-reference image)', bytes: fixture('debian-reference-home.png'), name: 'a.txt', expected: ExtractionErrorCode.UnsupportedType },
    {
      what: 'a zip that is neither DOCX nor XLSX',
      bytes: zipWith([{ name: 'readme.txt', data: docxXml }]),
      name: 'a.docx',
      expected: ExtractionErrorCode.UnsupportedType,
    },
    {
      what: 'a zip bomb: an entry declared far larger than the limit',
      bytes: zipWith([{ name: 'word/document.xml', data: docxXml, declaredSize: 0xfffffff0 }]),
      name: 'a.docx',
      expected: ExtractionErrorCode.ArchiveTooLarge,
    },
    {
      what: 'a zip bomb: a real entry of zeros over a small limit',
      bytes: zipWith([{ name: 'word/document.xml', data: new Uint8Array(2 * 1024 * 1024) }]),
      name: 'a.docx',
      expected: ExtractionErrorCode.ArchiveTooLarge,
    },
    {
      what: 'a zip bomb whose directory lies: 2 MiB of zeros declared as 1000 bytes',
      bytes: zipWith([{ name: 'word/document.xml', data: new Uint8Array(2 * 1024 * 1024), declaredSize: 1000 }]),
      name: 'a.docx',
      expected: ExtractionErrorCode.ArchiveTooLarge,
    },
    {
      what: 'a DOCX that is a truncated zip',
      bytes: fixture('debian-reference-ch08.en.docx').subarray(0, 4000),
      name: 'a.docx',
      expected: ExtractionErrorCode.DocxInvalid,
    },
    { what: 'an XLSX that is a truncated zip', bytes: fixture('faq-zh.xlsx').subarray(0, 2000), name: 'a.xlsx', expected: ExtractionErrorCode.SheetInvalid },
    {
      what: 'a sheet without question/answer columns',
      bytes: new TextEncoder().encode('name,price\nx,1\n'),
      name: 'a.csv',
      expected: ExtractionErrorCode.SheetNoQuestionAnswer,
    },
    { what: 'a text file of blank lines', bytes: new TextEncoder().encode('\n \n\t\n'), name: 'a.txt', expected: ExtractionErrorCode.NoText },
    { what: 'a file over maxFileBytes', bytes: new TextEncoder().encode('hello'), name: 'a.txt', expected: ExtractionErrorCode.FileTooLarge },
  ])('$what → $expected', async ({ bytes, name, expected, what }) => {
    const small: ExtractionLimits = {
      ...limits,
      maxDecompressedBytes: what.includes('small limit') ? 1024 * 1024 : limits.maxDecompressedBytes,
      maxFileBytes: what.includes('maxFileBytes') ? 4 : limits.maxFileBytes,
    };
    expect(await code(bytes, name, small)).toBe(expected);
  });
});

describe('sniffDocument: the bytes decide, not the name', () => {
  it.each([
    { what: 'HTML named .pdf', bytes: fixture('debian-reference-ch08.en.html'), name: 'manual.pdf', kind: 'html' },
    { what: 'plain text named .pdf', bytes: new TextEncoder().encode('just some text\n'), name: 'manual.pdf', kind: 'text' },
    { what: 'a PDF (LibreOffice) named .txt', bytes: fixture('libreoffice-tiny.pdf'), name: 'notes.txt', kind: 'pdf' },
    { what: 'a DOCX named .xlsx', bytes: fixture('debian-reference-ch08.en.docx'), name: 'sheet.xlsx', kind: 'docx' },
    { what: 'an XLSX named .docx', bytes: fixture('faq-zh.xlsx'), name: 'manual.docx', kind: 'xlsx' },
    { what: 'Markdown by extension among text', bytes: fixture('debian-reference-README.md'), name: 'README.md', kind: 'markdown' },
    { what: 'CSV by extension among text', bytes: fixture('faq-en.csv'), name: 'faq.csv', kind: 'csv' },
    { what: 'Markdown named .txt is text', bytes: fixture('debian-reference-README.md'), name: 'README.txt', kind: 'text' },
  ])('$what → $kind', async ({ bytes, name, kind }) => {
    expect((await sniffDocument(bytes, name, limits)).kind).toBe(kind);
  });
});
