import { assertNever } from '@arbiter/common';
import type { DocumentBlock, ExtractedDocument } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';

/**
 * OCR of scanned PDF pages, the pure part (docs/documents.md "Scanned PDFs (OCR)"): what to do with the
 * pages that have no text layer, given whether OCR is available, and how OCR's text becomes blocks with
 * their page. The child processes that render and read the pages are in tesseract-ocr.ts.
 */

/** How to get the install: named in every outcome that says OCR is not installed. */
export const OCR_INSTALL_HINT = 'apt-get install tesseract-ocr tesseract-ocr-chi-sim poppler-utils';

export const OCR_MODES = ['auto', 'on', 'off'] as const;
export type OcrMode = (typeof OCR_MODES)[number];

export type OcrAvailability =
  /** `languages`: the configured languages tesseract has; `missing`: configured ones it lacks. */
  | { available: true; languages: string[]; missing: string[] }
  /** `reason`: a client-safe sentence saying why, and how to fix it. */
  | { available: false; reason: string };

/** One page's OCR text (tesseract's plain output). */
export interface OcrPageText {
  page: number;
  text: string;
}

/** What reads pages: tesseract-ocr.ts in production. */
export interface OcrPort {
  /** Detected once; later calls answer the same. */
  availability(): Promise<OcrAvailability>;
  /** The text of these 1-based pages of the PDF; stops (and kills its children) when `signal` aborts. */
  read(pdf: Uint8Array, pages: readonly number[], signal: AbortSignal): Promise<OcrPageText[]>;
}

/** Where no OCR port was given (extractDocument in-process without one). */
export const OCR_NOT_CONFIGURED: OcrAvailability = { available: false, reason: 'OCR is not configured for this extraction.' };

/** Availability from the mode and `tesseract --list-langs` (null: tesseract or pdftoppm did not run). */
export function ocrAvailability(mode: OcrMode, wanted: readonly string[], installed: readonly string[] | null): OcrAvailability {
  switch (mode) {
    case 'off':
      return { available: false, reason: 'OCR is turned off (OCR_ENABLED=off).' };
    case 'auto':
    case 'on': {
      if (installed === null)
        return { available: false, reason: `OCR is not installed (tesseract and pdftoppm not found); install it with \`${OCR_INSTALL_HINT}\`.` };
      const languages = wanted.filter((l) => installed.includes(l));
      const missing = wanted.filter((l) => !installed.includes(l));
      if (languages.length === 0) {
        return {
          available: false,
          reason: `OCR is not available: tesseract has none of the languages ${wanted.join('+')} (install e.g. \`${OCR_INSTALL_HINT}\`).`,
        };
      }
      return { available: true, languages, missing };
    }
    default:
      return assertNever(mode, 'OCR mode');
  }
}

/** The language names `tesseract --list-langs` prints (after its "List of available languages" line). */
export function parseTesseractLanguages(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[A-Za-z0-9_-]+$/u.test(l));
}

export type TextlessPlan =
  /** Every page has a text layer. */
  | { action: 'none' }
  | { action: 'ocr'; pages: number[] }
  /** Some pages have text, OCR is unavailable: they are skipped with a warning. */
  | { action: 'skip'; warning: string }
  /** No page has text and OCR is unavailable: PDF_NO_TEXT with this message. */
  | { action: 'refuse'; message: string };

/** What to do with a PDF's pages that have no text layer. */
export function planTextlessPages(textlessPages: readonly number[], pageCount: number, ocr: OcrAvailability): TextlessPlan {
  if (textlessPages.length === 0) return { action: 'none' };
  if (ocr.available) return { action: 'ocr', pages: [...textlessPages] };
  if (textlessPages.length >= pageCount) return { action: 'refuse', message: `The PDF has no text layer (a scan?). ${ocr.reason}` };
  return { action: 'skip', warning: `${textlessPages.length} of ${pageCount} pages have no text layer and were skipped. ${ocr.reason}` };
}

const BULLET = /^(?:[•●▪◦‣∙·*\-–—=+]\s+|\d{1,3}[.)]\s+)(.*)$/u;
const CJK = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

function joinLine(a: string, b: string): string {
  if (a === '') return b;
  if (/[A-Za-z]-$/u.test(a) && /^[a-z]/u.test(b)) return a.slice(0, -1) + b;
  if (CJK.test(a.slice(-1)) && CJK.test(b[0] ?? '')) return a + b;
  return `${a} ${b}`;
}

/**
 * One page's OCR text → blocks: tesseract separates paragraphs by a blank line; a paragraph whose lines
 * all start with a bullet or a number is a list (one item a line), else its lines are joined (CJK without
 * spaces, a hyphenated word rejoined). OCR gives no font sizes, so no headings: chunks of an OCRed page
 * carry its page and the section of the text-layer heading before it.
 */
export function ocrBlocks(text: string, page: number): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  for (const para of text.replace(/\f/gu, '\n').split(/\n\s*\n/u)) {
    const lines = para
      .split('\n')
      .map((l) => l.replace(/\s+/gu, ' ').trim())
      .filter((l) => l !== '');
    if (lines.length === 0) continue;
    if (lines.every((l) => BULLET.test(l))) {
      blocks.push({ kind: 'list', text: lines.map((l) => `- ${BULLET.exec(l)?.[1] ?? l}`).join('\n'), page });
    } else {
      blocks.push({ kind: 'paragraph', text: lines.reduce(joinLine, ''), page });
    }
  }
  return blocks;
}

/**
 * A PDF with its text-layer blocks and OCR's pages merged in page order: `ocrPages` lists the pages whose
 * text came from OCR, a warning says so (and names pages OCR found nothing on, or missing languages).
 * No text anywhere, even after OCR → PDF_NO_TEXT.
 */
export function withOcrPages(doc: ExtractedDocument, read: readonly OcrPageText[], ocr: { languages: string[]; missing: string[] }): ExtractedDocument {
  const byPage = [...read].sort((a, b) => a.page - b.page).map((p) => ({ page: p.page, blocks: ocrBlocks(p.text, p.page) }));
  const found = byPage.filter((p) => p.blocks.length > 0);
  const blank = byPage.filter((p) => p.blocks.length === 0).map((p) => p.page);
  if (found.length === 0 && doc.blocks.length === 0) {
    throw new ExtractionError(
      ExtractionErrorCode.PdfNoText,
      `The PDF has no text layer (a scan?), and OCR (${ocr.languages.join('+')}) found no text on its pages.`,
    );
  }
  const blocks: DocumentBlock[] = [];
  let next = 0;
  for (const block of doc.blocks) {
    const at = block.page ?? 0;
    while (next < found.length && found[next]!.page < at) blocks.push(...found[next++]!.blocks);
    blocks.push(block);
  }
  while (next < found.length) blocks.push(...found[next++]!.blocks);
  const ocrPages = found.map((p) => p.page);
  const warnings = [...doc.warnings];
  if (ocrPages.length > 0) {
    warnings.push(
      `OCR (tesseract, ${ocr.languages.join('+')}) read ${ocrPages.length} page${ocrPages.length === 1 ? '' : 's'} without a text layer: ${ocrPages.join(', ')}.`,
    );
  }
  if (blank.length > 0) warnings.push(`OCR found no text on ${blank.length} page${blank.length === 1 ? '' : 's'} without a text layer: ${blank.join(', ')}.`);
  if (ocr.missing.length > 0) warnings.push(`OCR languages not installed: ${ocr.missing.join(', ')} (${OCR_INSTALL_HINT}).`);
  return { ...doc, blocks, ocrPages, warnings };
}
