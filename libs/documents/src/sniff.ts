import { fileTypeFromBuffer } from 'file-type';
import type { DocumentKind } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';
import { readZipDirectory, type ZipDirectory } from './zip-guard.js';
import type { ExtractionLimits } from './document.types.js';

/**
 * The media type of an uploaded file, from its bytes (docs/documents.md "Sniffing"): a client's
 * extension or Content-Type is never trusted for binary formats. Zip containers are told apart by their
 * entries (read once, also for the zip-bomb guard); text formats by their markup, then the extension.
 */
export interface SniffResult {
  kind: DocumentKind;
  mediaType: string;
  /** The central directory of a DOCX/XLSX, already checked against the decompression limit. */
  zip?: ZipDirectory;
}

export const MEDIA_TYPES: Readonly<Record<DocumentKind, string>> = Object.freeze({
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  csv: 'text/csv',
});

const UNSUPPORTED = 'The file type is not supported (PDF, DOCX, HTML, Markdown, text, CSV or XLSX).';

export async function sniffDocument(bytes: Uint8Array, fileName: string, limits: ExtractionLimits): Promise<SniffResult> {
  if (bytes.length === 0) throw new ExtractionError(ExtractionErrorCode.EmptyFile, 'The file is empty.');
  const detected = await fileTypeFromBuffer(bytes);
  if (detected !== undefined) {
    if (detected.mime === 'application/pdf') return { kind: 'pdf', mediaType: MEDIA_TYPES.pdf };
    // file-type names OOXML files itself; any zip-based answer goes through our own entry check.
    if (detected.mime === 'application/zip' || detected.ext === 'docx' || detected.ext === 'xlsx') {
      const zip = await readZipDirectory(bytes, limits, guessContainerKind(fileName));
      if (zip.names.has('word/document.xml')) return { kind: 'docx', mediaType: MEDIA_TYPES.docx, zip };
      if (zip.names.has('xl/workbook.xml')) return { kind: 'xlsx', mediaType: MEDIA_TYPES.xlsx, zip };
      throw new ExtractionError(ExtractionErrorCode.UnsupportedType, UNSUPPORTED);
    }
    // XHTML starting with `<?xml` is text: it goes through the text checks below.
    if (detected.mime === 'application/xml') return sniffText(bytes, fileName);
    // Images, executables, audio, other archives: file-type knows them, we do not read them.
    throw new ExtractionError(ExtractionErrorCode.UnsupportedType, UNSUPPORTED);
  }
  // A zip file-type could not place (e.g. an empty or damaged archive named .docx).
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const kind = guessContainerKind(fileName);
    if (kind === 'xlsx') throw new ExtractionError(ExtractionErrorCode.SheetInvalid, 'The spreadsheet is not a readable XLSX file.');
    throw new ExtractionError(ExtractionErrorCode.DocxInvalid, 'The file is not a readable DOCX file.');
  }
  return sniffText(bytes, fileName);
}

function sniffText(bytes: Uint8Array, fileName: string): SniffResult {
  if (!looksLikeText(bytes)) throw new ExtractionError(ExtractionErrorCode.UnsupportedType, UNSUPPORTED);
  const ext = extensionOf(fileName);
  if (looksLikeHtml(bytes)) return { kind: 'html', mediaType: MEDIA_TYPES.html };
  if (ext === 'md' || ext === 'markdown') return { kind: 'markdown', mediaType: MEDIA_TYPES.markdown };
  if (ext === 'csv') return { kind: 'csv', mediaType: MEDIA_TYPES.csv };
  return { kind: 'text', mediaType: MEDIA_TYPES.text };
}

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}

/** Which broken-container code reads right for a zip that cannot be opened: only the name says what it meant to be. */
function guessContainerKind(fileName: string): 'docx' | 'xlsx' {
  return extensionOf(fileName) === 'xlsx' ? 'xlsx' : 'docx';
}

/**
 * Text, not binary: no NUL bytes and few C0 controls in the first 8 KiB. UTF-16 text has NULs and is
 * refused here; GB18030/Big5/UTF-8 never contain NUL (docs/documents.md "Text").
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) return false;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) controls++;
  }
  return controls <= n / 100;
}

const HTML_START = /^\s*(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<\?xml[^>]*>\s*(?:<!doctype\s+html|<html[\s>]))/i;

/** HTML by its markup: a document starting with a doctype/html/head/body tag (after a BOM or comments). */
function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048)).replace(/^\u00ef\u00bb\u00bf/, '');
  return HTML_START.test(head);
}
