/**
 * What extraction makes of an uploaded file (docs/documents.md): its kind, sniffed from the bytes, and
 * its content as a sequence of structural blocks in reading order. Chunking (document-chunker.ts) and
 * storage work on this model only, never on a format. Pure types.
 */

/** The formats Arbiter reads. */
export const DOCUMENT_KINDS = ['pdf', 'docx', 'html', 'markdown', 'text', 'csv', 'xlsx'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'table' | 'code';

export interface DocumentBlock {
  kind: BlockKind;
  /**
   * The block's text. A list is one item per line (`- item`, `1. item`); a table is Markdown rows
   * (`| a | b |`, header separator after the first row); code keeps its line breaks.
   */
  text: string;
  /** Heading level, 1 (top) to 6: headings only. */
  level?: number;
  /** 1-based page the block starts on (PDF only). */
  page?: number;
  /** 1-based page the block ends on, when it runs over a page break (PDF only). */
  pageEnd?: number;
}

/** One row of an FAQ sheet (CSV/XLSX): one document each, the question as its title. */
export interface FaqRow {
  /** 1-based row number in the sheet (the header is row 1), for outcomes that name it. */
  row: number;
  question: string;
  answer: string;
  /** The optional similar-questions column, split; they become the document's keywords. */
  similar: string[];
}

export interface ExtractedDocument {
  kind: DocumentKind;
  /** The sniffed media type, e.g. `application/pdf`. */
  mediaType: string;
  /** The document's own title (PDF metadata, HTML `<title>`, the first top-level heading), or null. */
  title: string | null;
  /** Text documents (everything but FAQ sheets); empty for sheets. */
  blocks: DocumentBlock[];
  /** FAQ sheets only. */
  faqRows: FaqRow[];
  /** PDF only. */
  pageCount?: number;
  /** PDF only: 1-based pages without a text layer (scans), as the PDF parser found them. */
  textlessPages?: number[];
  /** PDF only: the pages whose text came from OCR (docs/documents.md "Scanned PDFs (OCR)"). */
  ocrPages?: number[];
  /** What extraction noticed without failing (e.g. pages without a text layer), for the file's outcome. */
  warnings: string[];
}

/** Bounds on one file's extraction (the config class supplies them). */
export interface ExtractionLimits {
  /** Largest file accepted, in bytes. */
  maxFileBytes: number;
  /** PDFs with more pages are refused (`PDF_TOO_MANY_PAGES`). */
  maxPdfPages: number;
  /** Largest total a zip container (DOCX, XLSX) may decompress to (`ARCHIVE_TOO_LARGE`: a zip bomb). */
  maxDecompressedBytes: number;
  /** One file's extraction is stopped after this long (`PARSE_TIMEOUT`). */
  timeoutMs: number;
}

export const DEFAULT_EXTRACTION_LIMITS: Readonly<ExtractionLimits> = Object.freeze({
  maxFileBytes: 50 * 1024 * 1024,
  maxPdfPages: 2000,
  maxDecompressedBytes: 512 * 1024 * 1024,
  timeoutMs: 120_000,
});
