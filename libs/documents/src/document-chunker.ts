import type { DocumentBlock } from './document.types.js';

/**
 * Structure-aware chunking of an extracted document (docs/documents.md "Chunks"). Pure logic.
 *
 * 1. A heading starts a new chunk, so no chunk runs across a section of any level; the heading's text is
 *    the chunk's first line, and `section` is the heading path (`['1 Setup', '1.4 Editors']`).
 * 2. Blocks are packed in reading order, separated by a blank line, into chunks of at most `chunkSize`
 *    UTF-16 code units.
 * 3. A block that fits in a chunk is never split: when it does not fit in what is left of the current
 *    chunk, it starts the next one — unless the current chunk holds only its section's heading, which
 *    never stands alone: then the block is split to fill the rest. A block larger than a chunk fills
 *    the rest of the current one and goes on in the next.
 * 4. Lists, tables and code are split between items, rows or lines, and every piece of a table repeats
 *    its header row and separator; text is split after a sentence end (`。！？；.!?;` and a space or
 *    the end), else after a clause break, else hard-cut (never inside a surrogate pair).
 * 5. A chunk's `page`/`pageEnd` are the first and last page of its blocks (PDF); absent otherwise.
 */

export interface DocumentChunkerOptions {
  /** Largest chunk in UTF-16 code units (>= 64). */
  chunkSize: number;
}

export const DEFAULT_DOCUMENT_CHUNKER_OPTIONS: Readonly<DocumentChunkerOptions> = Object.freeze({ chunkSize: 1000 });

export interface DocumentChunk {
  index: number;
  text: string;
  /** The heading path of the section the chunk belongs to, outermost first; empty before any heading. */
  section: string[];
  page?: number;
  pageEnd?: number;
}

interface Piece {
  text: string;
  heading?: boolean;
  page?: number;
  pageEnd?: number;
}

const SENTENCE_END = /[。！？；…]|[.!?;](?=\s|$)/g;
const CLAUSE_BREAK = /[，、,：:\s]/g;

/** Cuts `text` into parts of at most `size` code units at the latest sentence end, else clause break, else hard. */
export function splitLongText(text: string, size: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > size) {
    const window = rest.slice(0, size);
    let cut = lastBreak(window, SENTENCE_END, size / 3);
    if (cut === 0) cut = lastBreak(window, CLAUSE_BREAK, size / 3);
    if (cut === 0) cut = size;
    // Never between the two halves of a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    parts.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) parts.push(rest);
  return parts.filter((p) => p.length > 0);
}

/** End offset just after the last match of `pattern` in `window` at or past `minEnd`, or 0. */
function lastBreak(window: string, pattern: RegExp, minEnd: number): number {
  let end = 0;
  for (const match of window.matchAll(pattern)) {
    const after = (match.index ?? 0) + match[0].length;
    if (after >= minEnd) end = after;
  }
  return end;
}

/** Splits a list, table or code block between its lines into parts of at most `size`; tables repeat their header. */
function splitStructured(block: DocumentBlock, size: number): string[] {
  const lines = block.text.split('\n');
  const header = block.kind === 'table' && lines.length > 2 && isTableSeparator(lines[1]) ? lines.slice(0, 2) : [];
  const body = lines.slice(header.length);
  const headerText = header.join('\n');
  const parts: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) parts.push([...header, ...current].join('\n'));
    current = [];
  };
  for (const line of body) {
    const candidate = [...header, ...current, line].join('\n');
    if (candidate.length <= size) {
      current.push(line);
      continue;
    }
    flush();
    const room = size - (headerText ? headerText.length + 1 : 0);
    if (line.length <= room) current.push(line);
    else for (const part of splitLongText(line, Math.max(room, 16))) parts.push(headerText ? `${headerText}\n${part}` : part);
  }
  flush();
  return parts;
}

/**
 * The first part of a block that fits in `size`, and what is left of it (a table's rest keeps its
 * header row and separator).
 */
function takeFirst(block: DocumentBlock, size: number): { first: string; rest: string } {
  if (block.kind === 'paragraph' || block.kind === 'heading') {
    const first = splitLongText(block.text, size)[0] ?? '';
    return { first, rest: block.text.slice(first.length).trim() };
  }
  const first = splitStructured(block, size)[0] ?? '';
  const lines = block.text.split('\n');
  const firstLines = first.split('\n');
  const hasHeader = block.kind === 'table' && lines.length > 2 && firstLines[0] === lines[0] && firstLines[1] === lines[1] && isTableSeparator(lines[1]);
  const header = hasHeader ? lines.slice(0, 2) : [];
  // A line longer than `size` was cut inside: its remainder stays at the head of the rest.
  const taken = firstLines.slice(header.length);
  const body = lines.slice(header.length);
  let consumed = 0;
  while (consumed < taken.length && body[consumed] === taken[consumed]) consumed++;
  let remainder = body.slice(consumed);
  if (consumed < taken.length && remainder.length) {
    const cutLine = remainder[0] as string;
    remainder = [cutLine.slice((taken[consumed] as string).length).trim(), ...remainder.slice(1)];
  }
  const rest = remainder.filter((l) => l.length > 0);
  return { first, rest: rest.length ? [...header, ...rest].join('\n') : '' };
}

function isTableSeparator(line: string | undefined): boolean {
  return line !== undefined && /^\|?\s*:?-{3,}/.test(line);
}

function pagesOf(block: DocumentBlock): Pick<Piece, 'page' | 'pageEnd'> {
  return block.page === undefined ? {} : { page: block.page, pageEnd: block.pageEnd ?? block.page };
}

export function chunkDocument(blocks: readonly DocumentBlock[], options: Partial<DocumentChunkerOptions> = {}): DocumentChunk[] {
  const { chunkSize } = { ...DEFAULT_DOCUMENT_CHUNKER_OPTIONS, ...options };
  if (!Number.isInteger(chunkSize) || chunkSize < 64) throw new RangeError(`chunkSize must be an integer >= 64, got ${chunkSize}`);
  const chunks: DocumentChunk[] = [];
  const path: { level: number; text: string }[] = [];
  let section: string[] = [];
  let pieces: Piece[] = [];
  let length = 0;

  const flush = (): void => {
    if (!pieces.length) return;
    const paged = pieces.filter((p) => p.page !== undefined);
    chunks.push({
      index: chunks.length,
      text: pieces.map((p) => p.text).join('\n\n'),
      section,
      ...(paged.length ? { page: Math.min(...paged.map((p) => p.page as number)), pageEnd: Math.max(...paged.map((p) => p.pageEnd as number)) } : {}),
    });
    pieces = [];
    length = 0;
  };
  const push = (piece: Piece): void => {
    length += (pieces.length ? 2 : 0) + piece.text.length;
    pieces.push(piece);
  };
  /** Room left in the current chunk for one more block. */
  const room = (): number => chunkSize - (pieces.length ? length + 2 : 0);
  /** Places a block by rule 3, splitting it where it must. */
  const place = (block: DocumentBlock, pages: Pick<Piece, 'page' | 'pageEnd'>): void => {
    let rest = block.text;
    while (rest) {
      if (rest.length <= room()) {
        push({ text: rest, ...pages });
        return;
      }
      const onlyHeading = pieces.length > 0 && pieces.every((p) => p.heading);
      if (rest.length <= chunkSize && !onlyHeading) {
        flush();
        continue;
      }
      const size = room();
      if (size < 32) {
        flush();
        continue;
      }
      const taken = takeFirst({ ...block, text: rest }, size);
      push({ text: taken.first, ...pages });
      flush();
      rest = taken.rest;
    }
  };

  for (const block of blocks) {
    const text = block.text.trim();
    if (!text) continue;
    const pages = pagesOf(block);
    switch (block.kind) {
      case 'heading': {
        flush();
        const level = Math.min(Math.max(block.level ?? 1, 1), 6);
        while (path.length && (path[path.length - 1] as { level: number }).level >= level) path.pop();
        path.push({ level, text });
        section = path.map((h) => h.text);
        const [title, ...rest] = splitLongText(text, chunkSize);
        push({ text: title as string, heading: true, ...pages });
        if (rest.length) place({ kind: 'paragraph', text: rest.join(' ') }, pages);
        break;
      }
      case 'paragraph':
      case 'list':
      case 'table':
      case 'code':
        place({ ...block, text }, pages);
        break;
      default: {
        const unknown: never = block.kind;
        throw new Error(`unknown block kind ${String(unknown)}`);
      }
    }
  }
  flush();
  return chunks;
}
