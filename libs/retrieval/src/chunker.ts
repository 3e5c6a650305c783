/**
 * Sentence-aware text chunker for knowledge documents (Chinese and English). Pure logic.
 *
 * - Text is cut into *units* at sentence ends (Chinese 。！？；… and English . ! ? ; followed by
 *   whitespace, each with any closing quotes/brackets that follow), at line breaks and paragraphs.
 * - A Markdown heading (`# …` at a line start) always starts a new chunk (no overlap across it).
 * - Units are packed greedily into chunks of at most `chunkSize` UTF-16 code units.
 * - A unit longer than `chunkSize` (one huge sentence) is split at the last clause break
 *   (，、,：:  or whitespace) in the second half of the window, else hard-cut; never inside a
 *   surrogate pair.
 * - Consecutive chunks overlap by up to `overlap` code units: whole trailing sentences of the previous
 *   chunk when they fit, otherwise its character tail (starting at a word when there is a space).
 * Every chunk is an exact slice `text.slice(start, end)` of the input, trimmed of outer whitespace.
 */

export interface ChunkerOptions {
  /** Maximum chunk length in UTF-16 code units (>= 8). */
  chunkSize: number;
  /** Overlap between consecutive chunks in code units (0 <= overlap < chunkSize). */
  overlap: number;
}

export const DEFAULT_CHUNKER_OPTIONS: Readonly<ChunkerOptions> = Object.freeze({ chunkSize: 512, overlap: 64 });

export interface TextChunk {
  index: number;
  content: string;
  /** Offsets into the input (UTF-16 code units), `content === text.slice(start, end)`. */
  start: number;
  end: number;
}

interface Span {
  start: number;
  end: number;
  heading: boolean;
}

const CJK_TERMINATORS = new Set(['。', '！', '？', '；', '…', '｡']);
const LATIN_TERMINATORS = new Set(['.', '!', '?', ';']);
const CLOSERS = new Set(['"', "'", '”', '’', '」', '』', '）', ')', '】', ']', '》', '〉']);
const SOFT_BREAKS = new Set(['，', '、', ',', '：', ':', '﹐', '､']);
const HEADING = /^#{1,6}[ \t]/;

export function validateChunkerOptions(options: Partial<ChunkerOptions> = {}): ChunkerOptions {
  const merged = { ...DEFAULT_CHUNKER_OPTIONS, ...options };
  if (!Number.isInteger(merged.chunkSize) || merged.chunkSize < 8) {
    throw new RangeError(`chunkSize must be an integer >= 8, got ${merged.chunkSize}`);
  }
  if (!Number.isInteger(merged.overlap) || merged.overlap < 0 || merged.overlap >= merged.chunkSize) {
    throw new RangeError(`overlap must be an integer within [0, chunkSize), got ${merged.overlap}`);
  }
  return merged;
}

function isWhitespace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/.test(ch);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Moves a cut position so it never separates a surrogate pair (prefers moving backwards). */
function safeCut(text: string, pos: number, min: number): number {
  if (pos > min && pos < text.length && isLowSurrogate(text.charCodeAt(pos)) && isHighSurrogate(text.charCodeAt(pos - 1))) {
    return pos - 1 > min ? pos - 1 : pos + 1;
  }
  return pos;
}

/** Sentence/line units covering the whole text; trailing whitespace belongs to the unit before it. */
function sentenceUnits(text: string): Span[] {
  const units: Span[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number): void => {
    if (end > start) {
      const lineStart = start === 0 || text[start - 1] === '\n';
      units.push({ start, end, heading: lineStart && HEADING.test(text.slice(start, Math.min(end, start + 8))) });
      start = end;
    }
  };
  while (i < text.length) {
    const ch = text[i];
    let boundary = false;
    let j = i + 1;
    if (ch === '\n') {
      boundary = true;
    } else if (CJK_TERMINATORS.has(ch)) {
      boundary = true;
      while (j < text.length && (CJK_TERMINATORS.has(text[j]) || CLOSERS.has(text[j]))) j++;
    } else if (LATIN_TERMINATORS.has(ch)) {
      while (j < text.length && (LATIN_TERMINATORS.has(text[j]) || CLOSERS.has(text[j]))) j++;
      boundary = j >= text.length || isWhitespace(text[j]);
    }
    if (boundary) {
      while (j < text.length && isWhitespace(text[j])) j++;
      push(j);
      i = j;
    } else {
      i++;
    }
  }
  push(text.length);
  return units;
}

/** Splits a unit longer than `size` into pieces of at most `size`, preferring clause breaks. */
function splitLong(text: string, unit: Span, size: number): Span[] {
  const pieces: Span[] = [];
  let pos = unit.start;
  let first = true;
  while (unit.end - pos > size) {
    const limit = pos + size;
    let cut = -1;
    for (let k = limit; k > pos + Math.floor(size / 2); k--) {
      const prev = text[k - 1];
      if (SOFT_BREAKS.has(prev) || isWhitespace(prev)) {
        cut = k;
        break;
      }
    }
    if (cut < 0) cut = safeCut(text, limit, pos);
    pieces.push({ start: pos, end: cut, heading: first && unit.heading });
    first = false;
    pos = cut;
  }
  pieces.push({ start: pos, end: unit.end, heading: first && unit.heading });
  return pieces;
}

function trimmed(text: string, start: number, end: number): [number, number] {
  while (start < end && isWhitespace(text[start])) start++;
  while (end > start && isWhitespace(text[end - 1])) end--;
  return [start, end];
}

export function chunkText(text: string, options: Partial<ChunkerOptions> = {}): TextChunk[] {
  const { chunkSize, overlap } = validateChunkerOptions(options);
  // Pieces of an over-long sentence leave room for the overlap carried into the next chunk.
  const pieceSize = Math.max(1, chunkSize - overlap);
  const units = sentenceUnits(text).flatMap((u) => (u.end - u.start > chunkSize ? splitLong(text, u, pieceSize) : [u]));
  const chunks: TextChunk[] = [];
  const emit = (start: number, end: number): void => {
    const [s, e] = trimmed(text, start, end);
    if (e > s) chunks.push({ index: chunks.length, content: text.slice(s, e), start: s, end: e });
  };

  let curStart = -1;
  let curEnd = -1;
  /** Unit starts inside the current chunk (candidate overlap starts). */
  let curUnitStarts: number[] = [];
  for (const unit of units) {
    if (curStart < 0) {
      curStart = unit.start;
      curEnd = unit.end;
      curUnitStarts = [unit.start];
      continue;
    }
    if (unit.heading) {
      emit(curStart, curEnd);
      curStart = unit.start;
      curEnd = unit.end;
      curUnitStarts = [unit.start];
      continue;
    }
    // Whitespace-only units (blank lines) are glued to the current chunk when they fit.
    if (unit.end - curStart <= chunkSize) {
      curEnd = unit.end;
      curUnitStarts.push(unit.start);
      continue;
    }
    emit(curStart, curEnd);
    const next = overlapStart(text, curStart, curEnd, curUnitStarts, unit, chunkSize, overlap);
    curStart = next;
    curEnd = unit.end;
    curUnitStarts = next < unit.start ? curUnitStarts.filter((s) => s >= next) : [];
    if (curUnitStarts[0] !== next) curUnitStarts.unshift(next);
    curUnitStarts.push(unit.start);
  }
  if (curStart >= 0) emit(curStart, curEnd);
  return chunks;
}

/** Where the chunk after [curStart, curEnd) begins so it overlaps the previous one and still fits. */
function overlapStart(text: string, curStart: number, curEnd: number, unitStarts: number[], unit: Span, size: number, overlap: number): number {
  if (overlap === 0) return unit.start;
  const minStart = Math.max(curEnd - overlap, unit.end - size, curStart + 1);
  // Whole trailing sentences first: the earliest unit start that satisfies every bound.
  for (const s of unitStarts) {
    if (s >= minStart && s < curEnd && text.slice(s, curEnd).trim().length > 0) return s;
  }
  // Otherwise a character tail, starting after a space when there is one (English words stay whole).
  let s = minStart;
  if (s >= curEnd) return unit.start;
  for (let k = s; k < curEnd; k++) {
    if (isWhitespace(text[k])) {
      if (text.slice(k, curEnd).trim().length > 0) s = k + 1;
      break;
    }
  }
  if (s < text.length && isLowSurrogate(text.charCodeAt(s)) && isHighSurrogate(text.charCodeAt(s - 1))) s++;
  if (s >= curEnd || unit.end - s > size) return unit.start;
  return s;
}
