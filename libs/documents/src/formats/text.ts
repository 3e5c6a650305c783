import chardet from 'chardet';
import iconv from 'iconv-lite';
import type { DocumentBlock, ExtractedDocument } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';

/**
 * Plain text and the decoding every text format shares (docs/documents.md "Text"): UTF-8 (with or without
 * a BOM) when the bytes are valid UTF-8; otherwise chardet's guess, decoded with iconv-lite (GB18030
 * stands in for GBK/GB2312, a superset); no usable guess → TEXT_UNDECODABLE.
 */

/** Encodings chardet may name that we accept; legacy single-byte guesses on CJK text are wrong too often. */
const ICONV_NAMES: Readonly<Record<string, string>> = {
  GB18030: 'gb18030',
  GBK: 'gb18030',
  GB2312: 'gb18030',
  Big5: 'big5',
  Shift_JIS: 'shift_jis',
  'EUC-JP': 'euc-jp',
  'EUC-KR': 'euc-kr',
  'ISO-8859-1': 'latin1',
  'windows-1252': 'win1252',
  'UTF-16LE': 'utf16le',
  'UTF-16BE': 'utf16be',
};

export function decodeText(bytes: Uint8Array): string {
  try {
    // fatal: an invalid sequence throws, so non-UTF-8 text falls through to detection. ignoreBOM false strips it.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // not UTF-8
  }
  const guess = chardet.detect(bytes);
  const name = guess === null ? undefined : ICONV_NAMES[guess];
  if (name === undefined || !iconv.encodingExists(name)) {
    throw new ExtractionError(ExtractionErrorCode.TextUndecodable, 'The text is neither UTF-8 nor a recognised encoding (GB18030, GBK, Big5).');
  }
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
  // Replacement characters mean the guess did not fit the bytes.
  const bad = (text.match(/\ufffd/g) ?? []).length;
  if (bad > Math.max(2, text.length / 1000)) {
    throw new ExtractionError(ExtractionErrorCode.TextUndecodable, 'The text could not be decoded in its detected encoding.');
  }
  return text.replace(/^\ufeff/, '');
}

/** Paragraphs at blank lines; single line breaks inside a paragraph are kept (they may be meaningful in CJK text). */
export function textToBlocks(text: string): DocumentBlock[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\u3000]*\n/)
    .map((p) => p.replace(/[ \t]+$/gm, '').trim())
    .filter((p) => p !== '')
    .map((p) => ({ kind: 'paragraph' as const, text: p }));
}

export function extractText(bytes: Uint8Array, mediaType: string): ExtractedDocument {
  return { kind: 'text', mediaType, title: null, blocks: textToBlocks(decodeText(bytes)), faqRows: [], warnings: [] };
}
