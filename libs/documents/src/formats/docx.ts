import mammoth from 'mammoth';
import { parseHTML } from 'linkedom';
import type { ExtractedDocument } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';
import { htmlToBlocks } from './html-blocks.js';

/**
 * DOCX (docs/documents.md "DOCX"): mammoth turns the document into semantic HTML — Word's built-in
 * "Heading 1–6" styles become h1–h6 by default; the style map below adds the names LibreOffice and
 * localised Word templates use — and the HTML walk makes the blocks. The zip was already checked by
 * zip-guard.ts.
 */
const STYLE_MAP = [1, 2, 3, 4, 5, 6]
  .flatMap((n) => [`p[style-name='heading ${n}'] => h${n}:fresh`, `p[style-name='Heading ${n}'] => h${n}:fresh`, `p[style-name='标题 ${n}'] => h${n}:fresh`])
  .concat(["p[style-name='Title'] => h1:fresh", "p[style-name='Code'] => pre:separator('\\n')", "p[style-name='Preformatted Text'] => pre:separator('\\n')"]);

export async function extractDocx(bytes: Uint8Array, mediaType: string): Promise<ExtractedDocument> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }, { styleMap: STYLE_MAP });
    html = result.value;
  } catch {
    // mammoth's own message may quote the file; the outcome says only what went wrong.
    throw new ExtractionError(ExtractionErrorCode.DocxInvalid, 'The file is not a readable DOCX document.');
  }
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const blocks = htmlToBlocks(document.body);
  const first = blocks.find((b) => b.kind === 'heading' && b.level === 1);
  return { kind: 'docx', mediaType, title: first?.text ?? null, blocks, faqRows: [], warnings: [] };
}
