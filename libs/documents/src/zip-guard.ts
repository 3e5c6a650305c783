import yauzl from 'yauzl';
import type { ExtractionLimits } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';

/**
 * Zip-bomb guard for DOCX/XLSX (docs/documents.md "Zip containers"): the central directory is read
 * with yauzl before mammoth or exceljs inflate anything. The declared uncompressed total must stay
 * within `maxDecompressedBytes`, no entry may claim an absurd compression ratio, and each entry is then
 * inflated once (discarding the output) to prove the directory does not lie about its sizes.
 */
export interface ZipDirectory {
  names: Set<string>;
  totalUncompressed: number;
}

/** Deflate tops out near 1032:1; real Office XML compresses 5–30:1. Anything past this is built to explode. */
export const MAX_COMPRESSION_RATIO = 200;
/** Small entries may compress very well (a run of spaces); the ratio only counts above this size. */
const RATIO_MIN_BYTES = 1024 * 1024;

export function readZipDirectory(bytes: Uint8Array, limits: ExtractionLimits, kind: 'docx' | 'xlsx'): Promise<ZipDirectory> {
  const invalid = (): ExtractionError =>
    kind === 'xlsx'
      ? new ExtractionError(ExtractionErrorCode.SheetInvalid, 'The spreadsheet is not a readable XLSX file.')
      : new ExtractionError(ExtractionErrorCode.DocxInvalid, 'The file is not a readable DOCX file.');
  const tooLarge = (): ExtractionError =>
    new ExtractionError(ExtractionErrorCode.ArchiveTooLarge, `The file decompresses to more than the limit of ${limits.maxDecompressedBytes} bytes.`);
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true }, (err, zip) => {
      if (err !== null || zip === undefined) {
        reject(invalid());
        return;
      }
      const names = new Set<string>();
      let total = 0;
      let settled = false;
      const fail = (e: ExtractionError): void => {
        if (settled) return;
        settled = true;
        zip.close();
        reject(e);
      };
      zip.on('entry', (entry: yauzl.Entry) => {
        total += entry.uncompressedSize;
        const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
        if (total > limits.maxDecompressedBytes || (entry.uncompressedSize > RATIO_MIN_BYTES && ratio > MAX_COMPRESSION_RATIO)) {
          fail(tooLarge());
          return;
        }
        names.add(entry.fileName);
        if (entry.fileName.endsWith('/')) {
          zip.readEntry();
          return;
        }
        // The directory may lie: inflate the entry once, counting. yauzl (validateEntrySizes) errors as soon
        // as the stream yields more bytes than declared, so a lying bomb stops at its declared size.
        zip.openReadStream(entry, (streamErr, stream) => {
          if (streamErr !== null || stream === undefined) {
            fail(invalid());
            return;
          }
          stream.on('data', () => undefined);
          stream.on('error', (e: Error) => fail(/too many bytes/i.test(e.message) ? tooLarge() : invalid()));
          stream.on('end', () => {
            if (!settled) zip.readEntry();
          });
        });
      });
      zip.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({ names, totalUncompressed: total });
      });
      zip.on('error', () => fail(invalid()));
      zip.readEntry();
    });
  });
}
