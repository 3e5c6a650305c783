import { assertNever } from '@arbiter/common';
import type { ExtractedDocument } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';
import { OCR_NOT_CONFIGURED, planTextlessPages, withOcrPages, type OcrPort } from './ocr/ocr-plan.js';

// Apart from extract-document.ts so the runner (on the API's thread) loads no format parser.

/** Whether completeDocument needs the file's bytes again (a PDF with pages OCR might read). */
export function needsOcrBytes(doc: ExtractedDocument): boolean {
  return (doc.textlessPages?.length ?? 0) > 0;
}

/**
 * A read document's pages without a text layer OCRed (docs/documents.md "Scanned PDFs (OCR)") or, where
 * OCR is unavailable, skipped with a warning — or PDF_NO_TEXT naming why OCR did not run when no page has
 * text. A document without any text is refused as NO_TEXT.
 */
export async function completeDocument(doc: ExtractedDocument, bytes: Uint8Array | null, ocr: OcrPort | null, signal: AbortSignal): Promise<ExtractedDocument> {
  let done = doc;
  const textless = doc.textlessPages ?? [];
  if (textless.length > 0) {
    const availability = ocr === null || bytes === null ? OCR_NOT_CONFIGURED : await ocr.availability();
    const plan = planTextlessPages(textless, doc.pageCount ?? textless.length, availability);
    switch (plan.action) {
      case 'none':
        break;
      case 'refuse':
        throw new ExtractionError(ExtractionErrorCode.PdfNoText, plan.message);
      case 'skip':
        done = { ...doc, warnings: [...doc.warnings, plan.warning] };
        break;
      case 'ocr':
        if (!availability.available || ocr === null || bytes === null) throw new Error('OCR planned without an available OCR');
        done = withOcrPages(doc, await ocr.read(bytes, plan.pages, signal), availability);
        break;
      default:
        return assertNever(plan, 'textless plan');
    }
  }
  const hasText = done.blocks.some((b) => b.text.trim() !== '') || done.faqRows.length > 0;
  if (!hasText) throw new ExtractionError(ExtractionErrorCode.NoText, 'The file contains no text.');
  return done;
}
