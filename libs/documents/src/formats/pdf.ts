import { createRequire } from 'node:module';
import path from 'node:path';
import type { DocumentBlock, ExtractedDocument, ExtractionLimits } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';

/**
 * PDF (docs/documents.md "PDF"): pdfjs-dist's text layer, page by page, with pdfjs's own worker code run
 * in-process (the whole extraction already runs in an extraction thread, extraction-runner.ts). Text
 * items → lines (same baseline) → paragraphs (vertical gaps), lists (bullets, `1.`), code (monospace);
 * headings from the outline where there is one, else from font sizes clearly above the body size;
 * repeated headers/footers and bare page numbers dropped.
 */

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

const require = createRequire(import.meta.url);
/** pdfjs's own data folders; in Node it reads them from the file system (a path, with a trailing slash). */
const PDFJS_ROOT = path.dirname(require.resolve('pdfjs-dist/package.json'));
const CMAP_DIR = path.join(PDFJS_ROOT, 'cmaps') + path.sep;
const STANDARD_FONT_DIR = path.join(PDFJS_ROOT, 'standard_fonts') + path.sep;

let pdfjsLoaded: Promise<PdfJs> | null = null;
/**
 * Loading the worker module first sets `globalThis.pdfjsWorker`, so pdfjs runs its "fake worker" in this
 * thread instead of fetching a worker script (docs/documents.md "PDF": no worker download, no network).
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsLoaded ??= (async () => {
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjsLoaded;
}

/** One text line of a page, top-down coordinates (0 = top of the page). */
interface Line {
  text: string;
  top: number;
  x: number;
  size: number;
  mono: boolean;
  page: number;
  pageHeight: number;
}

interface OutlineEntry {
  title: string;
  level: number;
  page: number;
  /** Destination y from the page top, when the destination names one. */
  top: number | null;
}

const LIST_ITEM = /^(?:([•●▪◦‣∙·*\-–—])\s*|(\d{1,3}[.)])\s+|([a-z][.)])\s+)(.*)$/u;
const PAGE_NUMBER = /^(?:(?:page|p\.)\s*)?(?:\d{1,5}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,5})?$|^[-–—]\s*\d{1,5}\s*[-–—]$|^第\s*\d{1,5}\s*页$/iu;
const CJK = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/u;
const SENTENCE_END = /[.!?:;。！？：；]["')\]”’）]?$/u;

export async function extractPdf(bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedDocument> {
  const pdfjs = await loadPdfJs();
  // pdfjs may detach the buffer it is given: it gets its own copy, the caller's bytes stay intact.
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    cMapUrl: CMAP_DIR,
    cMapPacked: true,
    standardFontDataUrl: STANDARD_FONT_DIR,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    useWorkerFetch: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: PdfDocument;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    if (error instanceof Error && error.name === 'PasswordException') {
      throw new ExtractionError(ExtractionErrorCode.PdfEncrypted, 'The PDF is password-protected.');
    }
    throw new ExtractionError(ExtractionErrorCode.PdfCorrupt, 'The file is not a readable PDF (corrupt or truncated).');
  }
  try {
    if (doc.numPages > limits.maxPdfPages) {
      throw new ExtractionError(ExtractionErrorCode.PdfTooManyPages, `The PDF has ${doc.numPages} pages; the limit is ${limits.maxPdfPages}.`);
    }
    return await readDocument(doc);
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError(ExtractionErrorCode.PdfCorrupt, 'The PDF could not be read (corrupt or truncated).');
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

async function readDocument(doc: PdfDocument): Promise<ExtractedDocument> {
  const pages: Line[][] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    pages.push(await pageLines(page, n));
    page.cleanup();
  }
  // Pages without a text layer are left to OCR or refused by completeDocument (extract-document.ts).
  const textlessPages = pages.flatMap((p, i) => (p.length === 0 ? [i + 1] : []));
  const warnings: string[] = [];

  const kept = dropRepeatedLines(pages);
  const outline = await readOutline(doc);
  const lines = kept.flat();
  // The outline where it names headings on these pages; font sizes where it does not (or matches nothing).
  const fromOutline = outline.length > 0 ? outlineHeadings(kept, outline) : new Map<Line, HeadingMark>();
  const blocks = buildBlocks(lines, fromOutline.size > 0 ? fromOutline : sizeHeadings(lines));

  const metaTitle = await metadataTitle(doc);
  const firstHeading = blocks.find((b) => b.kind === 'heading');
  return {
    kind: 'pdf',
    mediaType: 'application/pdf',
    title: metaTitle ?? firstHeading?.text ?? null,
    blocks,
    faqRows: [],
    pageCount: doc.numPages,
    textlessPages,
    warnings,
  };
}

async function metadataTitle(doc: PdfDocument): Promise<string | null> {
  try {
    const meta = await doc.getMetadata();
    const info: unknown = meta.info;
    const title = typeof info === 'object' && info !== null && 'Title' in info ? info.Title : undefined;
    return typeof title === 'string' && title.trim() !== '' ? title.trim() : null;
  } catch {
    return null;
  }
}

type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

async function pageLines(page: PdfPage, pageNumber: number): Promise<Line[]> {
  const content = await page.getTextContent();
  const [, yMin, , yMax] = page.view;
  const pageHeight = yMax - yMin;
  const lines: Line[] = [];
  let current: { parts: string[]; baseline: number; x: number; end: number; size: number; chars: number; mono: number } | null = null;
  const flush = (): void => {
    if (current === null) return;
    // Table-of-contents dot leaders are reduced to one ellipsis.
    const text = current.parts
      .join('')
      .replace(/\s+/gu, ' ')
      .replace(/(?:\s*\.){4,}\s*/gu, ' … ')
      .trim();
    if (text !== '') {
      lines.push({
        text,
        top: yMax - current.baseline,
        x: current.x,
        size: current.size,
        mono: current.mono >= current.chars * 0.9,
        page: pageNumber,
        pageHeight,
      });
    }
    current = null;
  };
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const [, , c, d, x, y] = item.transform as number[];
    const size = Math.hypot(c ?? 0, d ?? 0) || item.height || 1;
    const str = item.str;
    const mono = content.styles[item.fontName]?.fontFamily === 'monospace';
    if (current !== null && Math.abs(y - current.baseline) > Math.max(size, current.size) * 0.5) flush();
    if (str.trim() === '') {
      if (current !== null && str !== '') current.parts.push(' ');
    } else if (current === null) {
      current = { parts: [str], baseline: y, x, end: x + item.width, size, chars: str.length, mono: mono ? str.length : 0 };
    } else {
      const gap = x - current.end;
      const prev = current.parts[current.parts.length - 1] ?? '';
      if (gap > size * 0.2 && !/\s$/u.test(prev) && !(CJK.test(prev.slice(-1)) && CJK.test(str[0] ?? ''))) current.parts.push(' ');
      current.parts.push(str);
      current.end = x + item.width;
      current.x = Math.min(current.x, x);
      if (str.trim().length >= current.chars / 2) current.size = Math.max(current.size, size);
      current.chars += str.length;
      if (mono) current.mono += str.length;
    }
    if (item.hasEOL) flush();
  }
  flush();
  // Reading order top to bottom (content streams do not always draw in order).
  return lines.sort((a, b) => a.top - b.top || a.x - b.x);
}

/**
 * Headers and footers: a line whose text (digits masked) recurs at the same height on at least half of
 * the pages (and 2) is dropped; bare page numbers in the top or bottom 12 % of a page too.
 */
function dropRepeatedLines(pages: Line[][]): Line[][] {
  // The page number inside a header ("Debian Reference 12 / 233", "xii") is masked so the header matches across pages.
  const key = (l: Line): string =>
    `${Math.round(l.top / 4)}|${l.text
      .replace(/^[\divxlcdm]+(?:\s*\/\s*\d+)?\s+|\s+[\divxlcdm]+(?:\s*\/\s*\d+)?$/giu, ' ')
      .replace(/\d+/gu, '#')
      .trim()
      .toLowerCase()}`;
  const counts = new Map<string, number>();
  for (const page of pages) for (const k of new Set(page.map(key))) counts.set(k, (counts.get(k) ?? 0) + 1);
  const withText = pages.filter((p) => p.length > 0).length;
  const threshold = Math.max(2, Math.ceil(withText / 2));
  return pages.map((page) =>
    page.filter((l) => {
      const inMargin = l.top < l.pageHeight * 0.12 || l.top > l.pageHeight * 0.88;
      if (inMargin && PAGE_NUMBER.test(l.text)) return false;
      return !(inMargin && (counts.get(key(l)) ?? 0) >= threshold);
    }),
  );
}

async function readOutline(doc: PdfDocument): Promise<OutlineEntry[]> {
  let outline: Awaited<ReturnType<PdfDocument['getOutline']>>;
  try {
    outline = await doc.getOutline();
  } catch {
    return [];
  }
  if (!Array.isArray(outline)) return [];
  const entries: OutlineEntry[] = [];
  const walk = async (items: typeof outline, level: number): Promise<void> => {
    for (const item of items) {
      const target = await resolveDestination(doc, item.dest);
      const title = item.title.replace(/\s+/gu, ' ').trim();
      if (target !== null && title !== '') entries.push({ title, level: Math.min(level, 6), page: target.page, top: target.top });
      if (item.items.length > 0) await walk(item.items, level + 1);
    }
  };
  await walk(outline, 1);
  return entries;
}

async function resolveDestination(doc: PdfDocument, dest: string | unknown[] | null): Promise<{ page: number; top: number | null } | null> {
  try {
    const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : dest;
    if (!Array.isArray(explicit) || explicit.length === 0) return null;
    const ref: unknown = explicit[0];
    let index: number;
    if (typeof ref === 'number') index = ref;
    else if (typeof ref === 'object' && ref !== null && 'num' in ref && 'gen' in ref && typeof ref.num === 'number' && typeof ref.gen === 'number') {
      index = await doc.getPageIndex({ num: ref.num, gen: ref.gen });
    } else return null;
    const mode: unknown = explicit[1];
    const y: unknown = explicit[3];
    const isXyz = typeof mode === 'object' && mode !== null && 'name' in mode && mode.name === 'XYZ';
    let top: number | null = null;
    if (isXyz && typeof y === 'number') {
      const page = await doc.getPage(index + 1);
      top = page.view[3] - y;
    }
    return { page: index + 1, top };
  } catch {
    return null;
  }
}

/** Heading marks: the index of a heading's first line → its level and how many lines it spans. */
interface HeadingMark {
  level: number;
  span: number;
  text: string;
}
type HeadingMarks = Map<Line, HeadingMark>;

const squash = (s: string): string => s.replace(/\s+/gu, '').toLowerCase();
/** Outline titles often leave out the number the page shows ("Links" for "1.2.7 Links", "第 1 章"). */
const SECTION_NUMBER = /^(?:(?:chapter|section|appendix|part)\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.?\s*|^第\s*[\d一二三四五六七八九十百]+\s*[章节部篇]\s*/iu;

/**
 * Outline titles matched to the lines of their destination page: 1–3 consecutive lines whose text
 * together is the title (a title is often drawn as "Chapter 1" over "Tutorials"). An entry whose title
 * is not found is left out (its page has no line to attach it to).
 */
function outlineHeadings(pages: Line[][], outline: OutlineEntry[]): HeadingMarks {
  const marks: HeadingMarks = new Map();
  for (const entry of outline) {
    const lines = pages[entry.page - 1] ?? [];
    const want = squash(entry.title);
    const start =
      entry.top === null
        ? 0
        : Math.max(
            0,
            lines.findIndex((l) => l.top >= entry.top! - 2 * l.size),
          );
    let matched = false;
    for (let from = 0; from < lines.length && !matched; from++) {
      const i = (start + from) % lines.length;
      const first = lines[i];
      if (first === undefined || marks.has(first)) continue;
      let raw = '';
      for (let span = 1; span <= 3 && i + span - 1 < lines.length; span++) {
        raw = joinText(raw, lines[i + span - 1]?.text ?? '');
        const joined = squash(raw);
        const unnumbered = squash(raw.replace(SECTION_NUMBER, ''));
        if (joined === want || unnumbered === want) {
          marks.set(first, { level: entry.level, span, text: raw });
          matched = true;
          break;
        }
        if (!want.startsWith(joined) && !want.startsWith(unnumbered)) break;
      }
    }
  }
  return marks;
}

/** Without an outline: short lines clearly larger than the body size are headings, levels by size rank. */
function sizeHeadings(lines: Line[]): HeadingMarks {
  const weight = new Map<number, number>();
  for (const l of lines) weight.set(round(l.size), (weight.get(round(l.size)) ?? 0) + l.text.length);
  let body = 0;
  let best = -1;
  for (const [size, w] of weight) if (w > best) [body, best] = [size, w];
  const isHeading = (l: Line): boolean => round(l.size) >= body * 1.15 && l.text.length <= 150 && !PAGE_NUMBER.test(l.text);
  const sizes = [...new Set(lines.filter(isHeading).map((l) => round(l.size)))].sort((a, b) => b - a);
  const marks: HeadingMarks = new Map();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (!isHeading(l)) continue;
    let span = 1;
    let text = l.text;
    // A heading wrapped over two lines of the same size and page is one heading.
    for (
      let next = lines[i + 1];
      next && next.page === l.page && round(next.size) === round(l.size) && next.top - l.top < l.size * 2 && span < 3;
      next = lines[i + span + 1]
    ) {
      text = joinText(text, next.text);
      span++;
    }
    marks.set(l, { level: Math.min(sizes.indexOf(round(l.size)) + 1, 6), span, text });
    i += span - 1;
  }
  return marks;
}

const round = (n: number): number => Math.round(n * 2) / 2;

function joinText(a: string, b: string): string {
  if (a === '') return b;
  if (/[A-Za-z]-$/u.test(a) && /^[a-z]/u.test(b)) return a.slice(0, -1) + b;
  if (CJK.test(a.slice(-1)) && CJK.test(b[0] ?? '')) return a + b;
  return `${a} ${b}`;
}

interface Open {
  kind: 'paragraph' | 'list' | 'code';
  parts: string[];
  page: number;
  pageEnd: number;
  last: Line;
  itemX: number;
}

function buildBlocks(lines: Line[], headings: HeadingMarks): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  let open: Open | null = null;
  const close = (): void => {
    if (open === null) return;
    const text = open.kind === 'code' ? open.parts.join('\n') : open.parts.join('');
    const block: DocumentBlock = { kind: open.kind, text: text.trim(), page: open.page };
    if (open.pageEnd !== open.page) block.pageEnd = open.pageEnd;
    if (block.text !== '') blocks.push(block);
    open = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = headings.get(line);
    if (heading !== undefined) {
      close();
      blocks.push({ kind: 'heading', text: heading.text, level: heading.level, page: line.page });
      i += heading.span - 1;
      continue;
    }
    const prev: Open | null = open;
    const samePage = prev !== null && prev.last.page === line.page;
    const gap = samePage ? line.top - prev.last.top : 0;
    const spaced = samePage && gap > Math.max(line.size, prev.last.size) * 1.75;
    const list = LIST_ITEM.exec(line.text);
    if (line.mono) {
      if (prev === null || prev.kind !== 'code' || spaced) {
        close();
        open = { kind: 'code', parts: [line.text], page: line.page, pageEnd: line.page, last: line, itemX: line.x };
      } else {
        prev.parts.push(line.text);
        prev.last = line;
        prev.pageEnd = line.page;
      }
      continue;
    }
    if (list !== null && (list[1] === undefined || list[4] !== '')) {
      const item = (list[2] ?? list[3]) ? `${list[2] ?? list[3]} ${list[4]}` : `- ${list[4]}`;
      if (prev === null || prev.kind !== 'list' || (spaced && gap > line.size * 3)) {
        close();
        open = { kind: 'list', parts: [item], page: line.page, pageEnd: line.page, last: line, itemX: line.x };
      } else {
        // A bullet drawn further right than the list's first one is a nested item.
        prev.parts.push(`\n${line.x > prev.itemX + 4 ? '  ' : ''}${item}`);
        prev.last = line;
        prev.pageEnd = line.page;
      }
      continue;
    }
    // A continuation: same block unless a vertical gap, a size change or a dedent back from a list item.
    const continues =
      prev !== null &&
      prev.kind !== 'code' &&
      (samePage
        ? !spaced && Math.abs(line.size - prev.last.size) < 1 && (prev.kind !== 'list' || line.x > prev.itemX + 1)
        : prev.kind === 'paragraph' && !SENTENCE_END.test(prev.parts.at(-1) ?? ''));
    if (continues && prev !== null) {
      const joined = joinText(prev.parts.pop() ?? '', line.text);
      prev.parts.push(joined);
      prev.last = line;
      prev.pageEnd = line.page;
    } else {
      close();
      open = { kind: 'paragraph', parts: [line.text], page: line.page, pageEnd: line.page, last: line, itemX: line.x };
    }
  }
  close();
  return blocks;
}
