import { assertNever } from '@arbiter/common';
import type { ExtractedDocument, ExtractionLimits } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';
import { extractDocx } from './formats/docx.js';
import { extractCsv, extractXlsx } from './formats/faq-sheet.js';
import { extractHtml } from './formats/html.js';
import { extractMarkdown } from './formats/markdown.js';
import { extractPdf } from './formats/pdf.js';
import { extractText } from './formats/text.js';
import { completeDocument } from './complete-document.js';
import type { OcrPort } from './ocr/ocr-plan.js';
import { sniffDocument } from './sniff.js';

/**
 * One uploaded file → its extracted document (docs/documents.md "Dispatch"): readDocument, then
 * completeDocument (OCR of scanned PDF pages where `ocr` is given and available). Every failure is an
 * ExtractionError with a client-safe message. The upload path runs the two halves apart (the reading on an
 * extraction thread, OCR's child processes from the runner: extraction-runner.ts).
 */
export async function extractDocument(
  bytes: Uint8Array,
  fileName: string,
  limits: ExtractionLimits,
  ocr: OcrPort | null = null,
  signal: AbortSignal = AbortSignal.timeout(limits.timeoutMs),
): Promise<ExtractedDocument> {
  return completeDocument(await readDocument(bytes, fileName, limits), bytes, ocr, signal);
}

/**
 * The size limit first, the type sniffed from the bytes (never from the name), the format's extractor. A
 * PDF's pages without a text layer are listed (`textlessPages`), not yet refused.
 */
export async function readDocument(bytes: Uint8Array, fileName: string, limits: ExtractionLimits): Promise<ExtractedDocument> {
  if (bytes.length > limits.maxFileBytes) {
    throw new ExtractionError(ExtractionErrorCode.FileTooLarge, `The file is larger than the limit of ${limits.maxFileBytes} bytes.`);
  }
  const sniffed = await sniffDocument(bytes, fileName, limits);
  return dispatch(bytes, sniffed.kind, sniffed.mediaType, limits);
}

async function dispatch(bytes: Uint8Array, kind: ExtractedDocument['kind'], mediaType: string, limits: ExtractionLimits): Promise<ExtractedDocument> {
  switch (kind) {
    case 'pdf':
      return extractPdf(bytes, limits);
    case 'docx':
      return extractDocx(bytes, mediaType);
    case 'xlsx':
      return extractXlsx(bytes, mediaType);
    case 'html':
      return extractHtml(bytes, mediaType);
    case 'markdown':
      return extractMarkdown(bytes, mediaType);
    case 'text':
      return extractText(bytes, mediaType);
    case 'csv':
      return extractCsv(bytes, mediaType);
    default:
      return assertNever(kind, 'document kind');
  }
}
