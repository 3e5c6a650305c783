import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_EXTRACTION_LIMITS } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';
import { extractPdf } from './pdf.js';

/** Real PDFs (test-fixtures/README.md): pages cut out of Debian's debian-reference 2.100 manuals. */
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../../test-fixtures/${name}`, import.meta.url)));
const limits = { ...DEFAULT_EXTRACTION_LIMITS };

describe('extractPdf on a real English manual (debian-reference, pages 40–43)', () => {
  const extracted = extractPdf(fixture('debian-reference-p40-43.en.pdf'), limits);

  it('reads the title from the metadata and counts the pages', async () => {
    const doc = await extracted;
    expect(doc.title).toBe('Debian Reference');
    expect(doc.pageCount).toBe(4);
    expect(doc.kind).toBe('pdf');
    expect(doc.warnings).toEqual([]);
    expect(doc.textlessPages).toEqual([]);
  });

  it.each([
    ['1.2.7 Links', 3, 2],
    ['1.2.8 Named pipes (FIFOs)', 3, 3],
    ['1.2.9 Sockets', 3, 3],
    ['1.2.10 Device files', 3, 3],
    ['1.2.11 Special device files', 3, 4],
  ])('heading %s from the outline at level %i on page %i', async (text, level, page) => {
    const doc = await extracted;
    expect(doc.blocks.filter((b) => b.kind === 'heading')).toContainEqual({ kind: 'heading', text, level, page });
  });

  it('drops the running header and page numbers ("Debian Reference 12 / 233")', async () => {
    const doc = await extracted;
    expect(doc.blocks.filter((b) => /Debian Reference|\d+ \/ 233/u.test(b.text))).toEqual([]);
  });

  it('gives every block a page, and lists and code their own kinds', async () => {
    const doc = await extracted;
    expect(doc.blocks.every((b) => b.page !== undefined && b.page >= 1 && b.page <= 4)).toBe(true);
    const list = doc.blocks.find((b) => b.kind === 'list' && b.text.includes('Hard link'));
    expect(list?.text.split('\n').slice(0, 2)).toEqual(['- Hard link', '  - Duplicate name for an existing file']);
    expect(doc.blocks.find((b) => b.kind === 'code' && b.text.startsWith('$ umask 002'))?.text.split('\n')[1]).toBe('$ echo ”Original Content” > foo');
  });
});

describe('extractPdf on a block over a page break (debian-reference, pages 34–35)', () => {
  it('keeps a list running over the page break in one block with page and pageEnd', async () => {
    const doc = await extractPdf(fixture('debian-reference-p34-35.en.pdf'), limits);
    const list = doc.blocks.find((b) => b.kind === 'list' && b.text.startsWith('- Filenames are case sensitive.'));
    expect(list).toMatchObject({ page: 1, pageEnd: 2 });
    expect(list?.text).toContain('\n- All fully-qualified filenames begin with the ”/” directory');
    expect(doc.blocks.filter((b) => b.pageEnd !== undefined && b !== list)).toEqual([]);
  });
});

describe('extractPdf on a real Chinese manual (debian-reference zh-cn, pages 40–41)', () => {
  it('round-trips Chinese text (packed CMaps) with headings and pages', async () => {
    const doc = await extractPdf(fixture('debian-reference-p40-41.zh-cn.pdf'), limits);
    expect(doc.title).toBe('Debian 参考手册');
    expect(doc.blocks).toContainEqual({ kind: 'paragraph', text: '有两种方法把一个文件“foo”链接到一个不同的文件名“bar”。', page: 1 });
    expect(doc.blocks).toContainEqual({ kind: 'heading', text: '1.2.8 命名管道（先进先出）', level: 3, page: 2 });
    expect(doc.blocks.filter((b) => b.text.includes('参考手册') || b.text.includes('/ 223'))).toEqual([]);
  });
});

describe('extractPdf on scans (pages without a text layer are listed for OCR, not refused here)', () => {
  it.each([
    ['scanned-no-text.pdf (img2pdf of a page image)', 'scanned-no-text.pdf', [1], 0],
    ['scanned-mixed.en.pdf (a text page, then a page image)', 'scanned-mixed.en.pdf', [2], 1],
  ])('%s', async (_what, file, textless, textPages) => {
    const doc = await extractPdf(fixture(file), limits);
    expect(doc.textlessPages).toEqual(textless);
    expect(new Set(doc.blocks.map((b) => b.page)).size).toBe(textPages);
  });
});

describe('extractPdf refusals', () => {
  it.each([
    ['encrypted.pdf (qpdf --encrypt, user password)', 'encrypted.pdf', limits, ExtractionErrorCode.PdfEncrypted],
    ['truncated.pdf (the first 20,000 bytes)', 'truncated.pdf', limits, ExtractionErrorCode.PdfCorrupt],
    ['4 pages over a limit of 3', 'debian-reference-p40-43.en.pdf', { ...limits, maxPdfPages: 3 }, ExtractionErrorCode.PdfTooManyPages],
  ])('%s → its code', async (_what, file, lim, code) => {
    const error = await extractPdf(fixture(file), lim).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error instanceof ExtractionError ? error.code : null).toBe(code);
  });

  it('not a PDF at all → PDF_CORRUPT, with a message that does not quote the parser', async () => {
    const error = await extractPdf(new TextEncoder().encode('hello, not a pdf'), limits).catch((e: unknown) => e);
    expect(error).toEqual(new ExtractionError(ExtractionErrorCode.PdfCorrupt, 'The file is not a readable PDF (corrupt or truncated).'));
  });
});
