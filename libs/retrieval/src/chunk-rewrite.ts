import { createHash } from 'node:crypto';

/**
 * Which rows of a replaced document's chunks a re-post writes again (docs/hot-paths.md "A re-post keeps its unchanged
 * chunks"). Pure: no Nest, no database.
 *
 * A chunk row and its postings are a function of the chunk's text, location and disabled flag, of the document's title,
 * keywords and domain (every chunk's heading, embedded and indexed with it) and of the analyzer's version — and of the
 * tenant's average chunk length when its postings were written, which every document's postings keep from their own
 * write anyway. So a row at the same index whose inputs did not change is kept as it is, postings included, and only
 * the others are deleted and written: a typo fixed in a 2,000-page manual rewrites a chunk, not the manual.
 */

/** The stored document a re-post replaces, as the choice reads it. */
export interface StoredDocumentState {
  /** Still being written in groups: never shown, nothing to keep. */
  writing: boolean;
  /** The analyzer version its postings were written with (0: not indexed). */
  lexicalVersion: number;
  title: string;
  keywords: readonly string[];
  domain: string;
}

/** The new version's fields every chunk's row depends on. */
export interface ReplacingDocument {
  title: string;
  keywords: readonly string[];
  domain: string;
}

/** Whether any of the stored document's chunk rows can be kept for the new version: its heading and postings still hold. */
export function keepsChunkRows(stored: StoredDocumentState, next: ReplacingDocument, lexicalVersion: number): boolean {
  return (
    !stored.writing &&
    stored.lexicalVersion === lexicalVersion &&
    stored.title === next.title &&
    stored.domain === next.domain &&
    stored.keywords.length === next.keywords.length &&
    stored.keywords.every((k, i) => k === next.keywords[i])
  );
}

/**
 * The chunk indices written again: those of the new version's `newCount` chunks not kept, and every index of the old
 * version past the new one's end (`oldCount`: its chunks), ascending.
 */
export function rewrittenChunkIndexes(kept: ReadonlySet<number>, newCount: number, oldCount: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.max(newCount, oldCount); i++) if (i >= newCount || !kept.has(i)) out.push(i);
  return out;
}

/**
 * By document id, the chunk indices a replace writes again ({@link rewrittenChunkIndexes}); a document not in it is
 * written whole.
 */
export type RewrittenChunks = ReadonlyMap<string, ReadonlySet<number>>;

/** The rewritten chunks as (document, chunk index) pairs: the keys a replace deletes chunk rows and postings by. */
export function rewrittenChunkPairs(rewritten: RewrittenChunks): { documentId: string; index: number }[] {
  return [...rewritten].flatMap(([documentId, indexes]) => [...indexes].map((index) => ({ documentId, index })));
}

/** A chunk's text as the database's `md5(content)` reads it (UTF-8), to compare without sending the text back. */
export function chunkTextHash(content: string): string {
  return createHash('md5').update(content, 'utf8').digest('hex');
}
