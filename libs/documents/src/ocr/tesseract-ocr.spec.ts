import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_EXTRACTION_LIMITS } from '../document.types.js';
import { extractDocument } from '../extract-document.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';
import { ExtractionRunner } from '../extraction-runner.js';
import { OCR_INSTALL_HINT } from './ocr-plan.js';
import { TesseractOcr } from './tesseract-ocr.js';

// Real tools (Debian's tesseract-ocr, tesseract-ocr-chi-sim, poppler-utils: .ci/run installs them) on real
// scans (libs/documents/test-fixtures/README.md): these tests fail, never skip, where OCR is not installed.
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../../test-fixtures/${name}`, import.meta.url)));
const limits = { ...DEFAULT_EXTRACTION_LIMITS, timeoutMs: 120_000 };
const ocr = new TesseractOcr({ mode: 'auto', languages: ['eng', 'chi_sim'], concurrency: 1 });
const tempFolders = (): Set<string> => new Set(readdirSync(os.tmpdir()).filter((n) => n.startsWith('arbiter-ocr-')));
const ocrChildren = (): string[] =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /^(?:\S*\/)?(?:tesseract|pdftoppm) .*arbiter-ocr-/u.test(l));
const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (check()) return true;
  return check();
};

describe('TesseractOcr (real tesseract and pdftoppm)', () => {
  it('detects the installed languages once', async () => {
    expect(await ocr.availability()).toEqual({ available: true, languages: ['eng', 'chi_sim'], missing: [] });
    expect(ocr.availability()).toBe(ocr.availability());
  });

  it('where tesseract is missing, OCR is unavailable and says how to install it', async () => {
    const missing = new TesseractOcr({
      mode: 'auto',
      languages: ['eng'],
      concurrency: 1,
      tools: { tesseract: '/nonexistent/tesseract', pdftoppm: 'pdftoppm' },
    });
    const availability = await missing.availability();
    expect(availability.available).toBe(false);
    expect(availability.available ? '' : availability.reason).toContain(OCR_INSTALL_HINT);
    const error = await extractDocument(fixture('scanned-no-text.pdf'), 'scan.pdf', limits, missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error instanceof ExtractionError ? [error.code, error.message] : null).toEqual([
      ExtractionErrorCode.PdfNoText,
      `The PDF has no text layer (a scan?). OCR is not installed (tesseract and pdftoppm not found); install it with \`${OCR_INSTALL_HINT}\`.`,
    ]);
  });

  it('reads a scanned page in-process (extractDocument), and removes its temp files', async () => {
    const before = tempFolders();
    const doc = await extractDocument(fixture('scanned-no-text.pdf'), 'scan.pdf', limits, ocr);
    expect(doc.ocrPages).toEqual([1]);
    expect(doc.blocks.map((b) => b.text).join('\n')).toMatch(/1\.2\.7 Links/u);
    expect(doc.blocks.every((b) => b.page === 1)).toBe(true);
    expect(doc.warnings).toEqual(['OCR (tesseract, eng+chi_sim) read 1 page without a text layer: 1.']);
    expect([...tempFolders()].filter((d) => !before.has(d))).toEqual([]);
  }, 120_000);
});

describe('OCR through the ExtractionRunner (the file read on a thread, its scanned pages by child processes)', () => {
  const runner = new ExtractionRunner({ ocr });
  const plain = new ExtractionRunner();
  afterAll(async () => {
    await runner.close();
    await plain.close();
  });

  it('a PDF with a text page and a scanned page: the scanned page OCRed, each block on its own page', async () => {
    const doc = await runner.extract(fixture('scanned-mixed.en.pdf'), 'mixed.pdf', limits);
    expect(doc.pageCount).toBe(2);
    expect(doc.textlessPages).toEqual([2]);
    expect(doc.ocrPages).toEqual([2]);
    const pageOf = (re: RegExp): number | undefined => doc.blocks.find((b) => re.test(b.text))?.page;
    expect(pageOf(/ctime is not file creation time/u)).toBe(1);
    expect(pageOf(/two methods of associating a file/u)).toBe(2);
    expect(doc.blocks.map((b) => b.page)).toEqual([...doc.blocks.map((b) => b.page ?? 0)].sort((a, b) => a - b));
  }, 120_000);

  it('without OCR a scan stays PDF_NO_TEXT, and a partly scanned PDF keeps its text pages with a warning', async () => {
    await expect(plain.extract(fixture('scanned-no-text.pdf'), 'scan.pdf', limits)).rejects.toEqual(
      new ExtractionError(ExtractionErrorCode.PdfNoText, 'The PDF has no text layer (a scan?). OCR is not configured for this extraction.'),
    );
    const doc = await plain.extract(fixture('scanned-mixed.en.pdf'), 'mixed.pdf', limits);
    expect(doc.ocrPages).toBeUndefined();
    expect(doc.blocks.every((b) => b.page === 1)).toBe(true);
    expect(doc.warnings).toEqual(['1 of 2 pages have no text layer and were skipped. OCR is not configured for this extraction.']);
  });

  it('OCR past the time limit: PARSE_TIMEOUT, its children killed and its temp files removed', async () => {
    const before = tempFolders();
    const slow = new ExtractionRunner({ ocr: new TesseractOcr({ mode: 'auto', languages: ['eng', 'chi_sim'], concurrency: 1, dpi: 600 }) });
    try {
      await expect(slow.extract(fixture('scanned-no-text.pdf'), 'scan.pdf', { ...limits, timeoutMs: 1500 })).rejects.toMatchObject({
        code: ExtractionErrorCode.ParseTimeout,
      });
    } finally {
      await slow.close();
    }
    expect(await until(() => ocrChildren().length === 0 && [...tempFolders()].every((d) => before.has(d)), 5000)).toBe(true);
  });
});
