import { chunkDocument, type ExtractedDocument, splitLongText } from '@arbiter/documents';
import type { ChunkDraft } from '../knowledge.service.js';

/** What the upload's form says of every document made from its files (docs/documents.md "Upload"). */
export interface UploadForm {
  domain: string;
  keywords: string[];
  metadata: Record<string, unknown>;
}

/** One document to write, made from an uploaded file, with its chunks already cut by the file's structure. */
export interface FileDocumentDraft {
  filePath: string;
  title: string;
  content: string;
  keywords: string[];
  chunks: ChunkDraft[];
}

/** Longest title the knowledge base stores (knowledge_document.title). */
const MAX_TITLE = 500;

/** The path of an FAQ sheet's row document: the file's name and the row, so a re-upload replaces row by row. */
export function sheetRowPath(fileName: string, row: number): string {
  return `${fileName}#${row}`;
}

/** The file's name without its extension: the title of a document whose file names none. */
export function titleFromFileName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return (dot > 0 ? fileName.slice(0, dot) : fileName).trim() || fileName;
}

const clip = (text: string): string => (text.length > MAX_TITLE ? text.slice(0, MAX_TITLE) : text);

/**
 * The documents a file makes (docs/documents.md "Upload"): an FAQ sheet one per row (the question as title,
 * similar questions as keywords, the answer as content); any other file one document whose chunks follow its
 * headings (document-chunker.ts), each with its page range and section path. Pure.
 */
export function documentsFromFile(extracted: ExtractedDocument, fileName: string, form: UploadForm, chunkSize: number): FileDocumentDraft[] {
  if (extracted.faqRows.length) {
    return extracted.faqRows.map((row) => ({
      filePath: sheetRowPath(fileName, row.row),
      title: clip(row.question.trim()),
      content: row.answer,
      keywords: [...new Set([...form.keywords, ...row.similar.map((s) => s.trim()).filter((s) => s.length > 0)])],
      chunks: splitLongText(row.answer, chunkSize).map((content) => ({ content })),
    }));
  }
  const chunks = chunkDocument(extracted.blocks, { chunkSize }).map((c): ChunkDraft => ({
    content: c.text,
    ...(c.page !== undefined ? { page: c.page } : {}),
    ...(c.pageEnd !== undefined ? { pageEnd: c.pageEnd } : {}),
    ...(c.section.length ? { section: c.section } : {}),
  }));
  return [
    {
      filePath: fileName,
      title: clip(extracted.title?.trim() || titleFromFileName(fileName)),
      content: extracted.blocks.map((b) => b.text).join('\n\n'),
      keywords: form.keywords,
      chunks,
    },
  ];
}
