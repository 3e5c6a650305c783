import type { DocumentBlock } from '../document.types.js';

/**
 * The HTML-to-blocks walk shared by HTML and DOCX (mammoth's output) (docs/documents.md "HTML"): h1–h6 →
 * headings, p → paragraphs, ul/ol → one list block, table → Markdown rows with the header separator,
 * pre → code. Other containers (div, section, article, blockquote…) are walked into; loose inline text
 * becomes a paragraph. Works on any DOM with the standard Node/Element API (linkedom here).
 */

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'nav', 'header', 'footer', 'aside', 'form', 'button', 'svg', 'iframe', 'head']);
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
  'br',
  'img',
  'tt',
  'font',
  'del',
  'ins',
  'label',
]);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

/** Collapses HTML whitespace (a `<br>` is a line break kept inside list items and cells as a space). */
export function normaliseSpace(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

function tag(node: DomNode): string {
  return node.nodeName.toLowerCase();
}

function children(node: DomNode): DomNode[] {
  return Array.from(node.childNodes);
}

function inlineText(node: DomNode): string {
  if (node.nodeType === TEXT_NODE) return node.textContent ?? '';
  if (node.nodeType !== ELEMENT_NODE || SKIP.has(tag(node))) return '';
  if (tag(node) === 'br') return ' ';
  return children(node).map(inlineText).join('');
}

export function htmlToBlocks(root: DomNode): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  let pending = '';
  const flush = (): void => {
    const text = normaliseSpace(pending);
    if (text !== '') blocks.push({ kind: 'paragraph', text });
    pending = '';
  };
  const walk = (node: DomNode): void => {
    if (node.nodeType === TEXT_NODE) {
      pending += node.textContent ?? '';
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const name = tag(node);
    if (SKIP.has(name)) return;
    if (INLINE.has(name)) {
      pending += inlineText(node);
      return;
    }
    flush();
    const heading = /^h([1-6])$/.exec(name);
    if (heading !== null) {
      const text = normaliseSpace(inlineText(node));
      if (text !== '') blocks.push({ kind: 'heading', level: Number(heading[1]), text });
    } else if (name === 'p') {
      const text = normaliseSpace(inlineText(node));
      if (text !== '') blocks.push({ kind: 'paragraph', text });
    } else if (name === 'ul' || name === 'ol') {
      const text = listText(node, name === 'ol', 0).join('\n');
      if (text !== '') blocks.push({ kind: 'list', text });
    } else if (name === 'dl') {
      const items = children(node)
        .filter((c) => c.nodeType === ELEMENT_NODE)
        .map((c) => (tag(c) === 'dt' ? `- ${normaliseSpace(inlineText(c))}` : `  ${normaliseSpace(inlineText(c))}`))
        .filter((line) => line.trim() !== '-' && line.trim() !== '');
      if (items.length > 0) blocks.push({ kind: 'list', text: items.join('\n') });
    } else if (name === 'table') {
      const text = tableText(node);
      if (text !== '') blocks.push({ kind: 'table', text });
    } else if (name === 'pre') {
      const text = (node.textContent ?? '').replace(/^\n+|\s+$/g, '');
      if (text !== '') blocks.push({ kind: 'code', text });
    } else {
      for (const child of children(node)) walk(child);
      flush();
    }
  };
  walk(root);
  flush();
  return blocks;
}

/** One line per item (`- a`, `1. b`), nested lists indented two spaces under their item. */
function listText(list: DomNode, ordered: boolean, depth: number): string[] {
  const lines: string[] = [];
  let n = 0;
  for (const item of children(list)) {
    if (item.nodeType !== ELEMENT_NODE || tag(item) !== 'li') continue;
    n++;
    let own = '';
    const nested: string[] = [];
    for (const c of children(item)) {
      const name = c.nodeType === ELEMENT_NODE ? tag(c) : '';
      if (name === 'ul' || name === 'ol') nested.push(...listText(c, name === 'ol', depth + 1));
      else own += c.nodeType === ELEMENT_NODE ? ` ${inlineText(c)} ` : (c.textContent ?? '');
    }
    const text = normaliseSpace(own);
    if (text !== '') lines.push(`${'  '.repeat(depth)}${ordered ? `${n}.` : '-'} ${text}`);
    lines.push(...nested);
  }
  return lines;
}

function collectRows(node: DomNode, rows: DomNode[]): void {
  for (const c of children(node)) {
    if (c.nodeType !== ELEMENT_NODE) continue;
    const name = tag(c);
    if (name === 'tr') rows.push(c);
    else if (name === 'thead' || name === 'tbody' || name === 'tfoot') collectRows(c, rows);
  }
}

/** Markdown rows, the first row as header; `|` in a cell escaped; short rows padded. */
function tableText(table: DomNode): string {
  const rows: DomNode[] = [];
  collectRows(table, rows);
  const cells = rows
    .map((r) =>
      children(r)
        .filter((c) => c.nodeType === ELEMENT_NODE && (tag(c) === 'td' || tag(c) === 'th'))
        .map((c) => normaliseSpace(inlineTextDeep(c)).replace(/\|/g, '\\|')),
    )
    .filter((r) => r.some((c) => c !== ''));
  return markdownTable(cells);
}

/** Cell text including block children (a DOCX cell holds paragraphs). */
function inlineTextDeep(node: DomNode): string {
  if (node.nodeType === TEXT_NODE) return node.textContent ?? '';
  if (node.nodeType !== ELEMENT_NODE || SKIP.has(tag(node))) return '';
  return children(node)
    .map((c) => (c.nodeType === ELEMENT_NODE && !INLINE.has(tag(c)) ? ` ${inlineTextDeep(c)} ` : inlineTextDeep(c)))
    .join('');
}

/** Rows of cells as Markdown (`| a | b |` then `| --- | --- |`), as document.types.ts asks of tables. */
export function markdownTable(rows: string[][]): string {
  if (rows.length === 0) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]): string => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...body.map(line)].join('\n');
}
