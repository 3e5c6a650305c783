import { Lexer, type Token, type Tokens } from 'marked';
import type { DocumentBlock, ExtractedDocument } from '../document.types.js';
import { markdownTable, normaliseSpace } from './html-blocks.js';
import { decodeText } from './text.js';

/**
 * Markdown (docs/documents.md "Markdown"): marked's lexer (GFM) gives the structure: `#`/setext headings,
 * paragraphs, lists (nested items indented), tables as Markdown rows, fenced and indented code. Inline
 * markup is reduced to its text. Raw HTML blocks are kept as paragraphs of their text.
 */
export function extractMarkdown(bytes: Uint8Array, mediaType: string): ExtractedDocument {
  const tokens = new Lexer({ gfm: true }).lex(decodeText(bytes));
  const blocks: DocumentBlock[] = [];
  for (const token of tokens) pushToken(token, blocks);
  const first = blocks.find((b) => b.kind === 'heading' && b.level === 1);
  return { kind: 'markdown', mediaType, title: first?.text ?? null, blocks, faqRows: [], warnings: [] };
}

function inline(tokens: Token[] | undefined, raw: string): string {
  if (tokens === undefined) return raw;
  return tokens
    .map((t) => {
      if ('tokens' in t && Array.isArray(t.tokens)) return inline(t.tokens, 'text' in t ? String(t.text) : '');
      if (t.type === 'br') return ' ';
      return 'text' in t ? String(t.text) : '';
    })
    .join('');
}

function listLines(list: Tokens.List, depth: number): string[] {
  const lines: string[] = [];
  const start = typeof list.start === 'number' ? list.start : 1;
  list.items.forEach((item, i) => {
    const own: string[] = [];
    const nested: string[] = [];
    for (const t of item.tokens) {
      if (t.type === 'list') nested.push(...listLines(t as Tokens.List, depth + 1));
      else own.push(inline('tokens' in t ? t.tokens : undefined, 'text' in t ? String(t.text) : ''));
    }
    const bullet = list.ordered ? `${start + i}.` : '-';
    const text = normaliseSpace(own.join(' '));
    if (text !== '') lines.push(`${'  '.repeat(depth)}${bullet} ${text}`);
    lines.push(...nested);
  });
  return lines;
}

function pushToken(token: Token, blocks: DocumentBlock[]): void {
  switch (token.type) {
    case 'heading': {
      const t = token as Tokens.Heading;
      const text = normaliseSpace(inline(t.tokens, t.text));
      if (text !== '') blocks.push({ kind: 'heading', level: t.depth, text });
      return;
    }
    case 'paragraph':
    case 'text': {
      const t = token as Tokens.Paragraph;
      const text = inline(t.tokens, t.text).trim();
      if (text !== '') blocks.push({ kind: 'paragraph', text });
      return;
    }
    case 'list': {
      const text = listLines(token as Tokens.List, 0).join('\n');
      if (text !== '') blocks.push({ kind: 'list', text });
      return;
    }
    case 'table': {
      const t = token as Tokens.Table;
      const cell = (c: Tokens.TableCell): string => normaliseSpace(inline(c.tokens, c.text)).replace(/\|/g, '\\|');
      blocks.push({ kind: 'table', text: markdownTable([t.header.map(cell), ...t.rows.map((r) => r.map(cell))]) });
      return;
    }
    case 'code': {
      const text = (token as Tokens.Code).text.replace(/\s+$/, '');
      if (text !== '') blocks.push({ kind: 'code', text });
      return;
    }
    case 'blockquote': {
      for (const t of (token as Tokens.Blockquote).tokens) pushToken(t, blocks);
      return;
    }
    case 'html': {
      const text = normaliseSpace((token as Tokens.HTML).text.replace(/<[^>]*>/g, ' '));
      if (text !== '') blocks.push({ kind: 'paragraph', text });
      return;
    }
    default:
      // space, hr, def and extension tokens carry no text of their own.
      return;
  }
}
