import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { ExtractedDocument } from '../document.types.js';
import { htmlToBlocks, normaliseSpace } from './html-blocks.js';
import { decodeText } from './text.js';

/**
 * HTML (docs/documents.md "HTML"): the main content only. @mozilla/readability (Firefox Reader View's
 * algorithm) on a linkedom document drops navigation, sidebars and boilerplate; when it finds no
 * article the whole <body> is walked (nav/header/footer/aside still skipped). `title` is <title>.
 */
/** The part of a DOM element the anchor unwrap uses (the project compiles without the DOM lib). */
interface Unwrappable {
  childNodes: ArrayLike<object>;
  replaceWith(...nodes: object[]): void;
}

export function extractHtml(bytes: Uint8Array, mediaType: string): ExtractedDocument {
  const html = decodeText(bytes);
  const { document } = parseHTML(html);
  const title = normaliseSpace(document.querySelector('title')?.textContent ?? '') || null;
  let blocks = htmlToBlocks(document.body ?? document.documentElement);
  // Readability edits the document it reads, so it gets its own copy. Anchors without href are targets,
  // not links: XHTML tools (DocBook) write `<a id="x"/>` in headings, which an HTML parser opens around the
  // heading's text, so Readability would count every heading as all link text and drop it.
  const copy = parseHTML(html).document;
  const anchors: Iterable<Unwrappable> = copy.querySelectorAll('a:not([href])');
  for (const anchor of Array.from(anchors)) anchor.replaceWith(...Array.from(anchor.childNodes));
  const article = new Readability(copy, { charThreshold: 200 }).parse();
  if (article?.content) {
    const main = htmlToBlocks(parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body);
    if (main.length > 0) blocks = main;
  }
  return { kind: 'html', mediaType, title, blocks, faqRows: [], warnings: [] };
}
