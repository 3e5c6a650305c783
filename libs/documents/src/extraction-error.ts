import { assertNever } from '@arbiter/common';

/** Why a file could not be read: a file's outcome names one of these (docs/documents.md "Outcomes"). */
export enum ExtractionErrorCode {
  UnsupportedType = 'UNSUPPORTED_TYPE',
  EmptyFile = 'EMPTY_FILE',
  FileTooLarge = 'FILE_TOO_LARGE',
  PdfEncrypted = 'PDF_ENCRYPTED',
  PdfNoText = 'PDF_NO_TEXT',
  PdfCorrupt = 'PDF_CORRUPT',
  PdfTooManyPages = 'PDF_TOO_MANY_PAGES',
  DocxInvalid = 'DOCX_INVALID',
  /** A file sniffed as a zip that cannot be read as XLSX (DOCX_INVALID would name the wrong format). */
  SheetInvalid = 'SHEET_INVALID',
  ArchiveTooLarge = 'ARCHIVE_TOO_LARGE',
  TextUndecodable = 'TEXT_UNDECODABLE',
  SheetNoQuestionAnswer = 'SHEET_NO_QUESTION_ANSWER',
  NoText = 'NO_TEXT',
  ParseTimeout = 'PARSE_TIMEOUT',
}

/** The status an upload answers with when every file of it is refused for this reason. */
export function extractionErrorStatus(code: ExtractionErrorCode): 400 | 413 | 415 {
  switch (code) {
    case ExtractionErrorCode.UnsupportedType:
      return 415;
    case ExtractionErrorCode.FileTooLarge:
    case ExtractionErrorCode.PdfTooManyPages:
    case ExtractionErrorCode.ArchiveTooLarge:
      return 413;
    case ExtractionErrorCode.EmptyFile:
    case ExtractionErrorCode.PdfEncrypted:
    case ExtractionErrorCode.PdfNoText:
    case ExtractionErrorCode.PdfCorrupt:
    case ExtractionErrorCode.DocxInvalid:
    case ExtractionErrorCode.SheetInvalid:
    case ExtractionErrorCode.TextUndecodable:
    case ExtractionErrorCode.SheetNoQuestionAnswer:
    case ExtractionErrorCode.NoText:
    case ExtractionErrorCode.ParseTimeout:
      return 400;
    default:
      return assertNever(code, 'extraction error code');
  }
}

/** A file Arbiter cannot read, with a client-safe reason (never the parser's own text, which may quote the file). */
export class ExtractionError extends Error {
  constructor(
    readonly code: ExtractionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ExtractionError';
  }
}
