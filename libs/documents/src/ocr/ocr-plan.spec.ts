import { describe, expect, it } from '@jest/globals';
import type { ExtractedDocument } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';
import { OCR_INSTALL_HINT, ocrAvailability, ocrBlocks, parseTesseractLanguages, planTextlessPages, withOcrPages, type OcrAvailability } from './ocr-plan.js';

const available: OcrAvailability = { available: true, languages: ['eng', 'chi_sim'], missing: [] };
const notInstalled = ocrAvailability('auto', ['eng', 'chi_sim'], null);

describe('ocrAvailability (OCR_ENABLED × what tesseract has)', () => {
  it.each<[string, Parameters<typeof ocrAvailability>, OcrAvailability | RegExp]>([
    ['off, whatever is installed', ['off', ['eng'], ['eng', 'osd']], /OCR is turned off \(OCR_ENABLED=off\)/],
    ['auto, not installed', ['auto', ['eng', 'chi_sim'], null], /OCR is not installed .*apt-get install tesseract-ocr tesseract-ocr-chi-sim poppler-utils/],
    ['on, not installed', ['on', ['eng'], null], /OCR is not installed/],
    ['auto, every language', ['auto', ['eng', 'chi_sim'], ['chi_sim', 'eng', 'osd']], { available: true, languages: ['eng', 'chi_sim'], missing: [] }],
    ['auto, one missing', ['auto', ['eng', 'chi_sim'], ['eng', 'osd']], { available: true, languages: ['eng'], missing: ['chi_sim'] }],
    ['auto, none of them', ['auto', ['deu'], ['eng', 'osd']], /none of the languages deu/],
  ])('%s', (_what, args, expected) => {
    const got = ocrAvailability(...args);
    if (expected instanceof RegExp) {
      expect(got.available).toBe(false);
      expect(got.available ? '' : got.reason).toMatch(expected);
    } else expect(got).toEqual(expected);
  });

  it('reads the names `tesseract --list-langs` prints', () => {
    const out = 'List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):\nchi_sim\neng\nosd\n';
    expect(parseTesseractLanguages(out)).toEqual(['chi_sim', 'eng', 'osd']);
  });
});

describe('planTextlessPages', () => {
  it.each<[string, number[], number, OcrAvailability, ReturnType<typeof planTextlessPages>]>([
    ['every page has text', [], 3, notInstalled, { action: 'none' }],
    ['a scan, OCR available', [1, 2], 2, available, { action: 'ocr', pages: [1, 2] }],
    ['some scanned pages, OCR available', [2], 3, available, { action: 'ocr', pages: [2] }],
    [
      'a scan, OCR off',
      [1],
      1,
      ocrAvailability('off', ['eng'], ['eng']),
      { action: 'refuse', message: 'The PDF has no text layer (a scan?). OCR is turned off (OCR_ENABLED=off).' },
    ],
    [
      'some scanned pages, OCR not installed',
      [2],
      3,
      notInstalled,
      { action: 'skip', warning: `1 of 3 pages have no text layer and were skipped. ${notInstalled.available ? '' : notInstalled.reason}` },
    ],
  ])('%s', (_what, textless, pages, ocr, plan) => {
    expect(planTextlessPages(textless, pages, ocr)).toEqual(plan);
  });

  it('a scan where OCR is not installed is refused with the way to install it', () => {
    const plan = planTextlessPages([1], 1, notInstalled);
    expect(plan.action).toBe('refuse');
    expect(plan.action === 'refuse' ? plan.message : '').toContain(OCR_INSTALL_HINT);
  });
});

describe('ocrBlocks (tesseract text → blocks of its page)', () => {
  it('paragraphs by blank lines, lines joined (hyphens rejoined, CJK without spaces), bullet runs as lists', () => {
    const text = '1.2.7 Links\n\nThere are two methods of associ-\nating a file with a name.\n\n* Hard Link\n* Symbolic link\n\n有两种方法把一个\n文件链接\n\f';
    expect(ocrBlocks(text, 4)).toEqual([
      { kind: 'paragraph', text: '1.2.7 Links', page: 4 },
      { kind: 'paragraph', text: 'There are two methods of associating a file with a name.', page: 4 },
      { kind: 'list', text: '- Hard Link\n- Symbolic link', page: 4 },
      { kind: 'paragraph', text: '有两种方法把一个文件链接', page: 4 },
    ]);
    expect(ocrBlocks(' \n\f', 1)).toEqual([]);
  });
});

describe('withOcrPages', () => {
  const pdf = (blocks: ExtractedDocument['blocks']): ExtractedDocument => ({
    kind: 'pdf',
    mediaType: 'application/pdf',
    title: null,
    blocks,
    faqRows: [],
    pageCount: 4,
    textlessPages: [2, 4],
    warnings: [],
  });

  it('merges OCR pages in page order, lists them, and names pages OCR found nothing on and missing languages', () => {
    const doc = withOcrPages(
      pdf([
        { kind: 'heading', text: 'One', level: 1, page: 1 },
        { kind: 'paragraph', text: 'Three', page: 3 },
      ]),
      [
        { page: 4, text: '' },
        { page: 2, text: 'Scanned two' },
      ],
      { languages: ['eng'], missing: ['chi_sim'] },
    );
    expect(doc.blocks.map((b) => [b.text, b.page])).toEqual([
      ['One', 1],
      ['Scanned two', 2],
      ['Three', 3],
    ]);
    expect(doc.ocrPages).toEqual([2]);
    expect(doc.warnings).toEqual([
      'OCR (tesseract, eng) read 1 page without a text layer: 2.',
      'OCR found no text on 1 page without a text layer: 4.',
      `OCR languages not installed: chi_sim (${OCR_INSTALL_HINT}).`,
    ]);
  });

  it('no text anywhere, even after OCR → PDF_NO_TEXT', () => {
    const error = (() => {
      try {
        return withOcrPages(pdf([]), [{ page: 2, text: '\f' }], { languages: ['eng'], missing: [] });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toEqual(new ExtractionError(ExtractionErrorCode.PdfNoText, 'The PDF has no text layer (a scan?), and OCR (eng) found no text on its pages.'));
  });
});
