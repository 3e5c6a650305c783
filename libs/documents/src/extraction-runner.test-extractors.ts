import { threadId } from 'node:worker_threads';
import type { ExtractedDocument, ExtractionLimits } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';

/**
 * A stand-in extractor for extraction-runner.spec.ts (loaded in the worker through `extractorModule`): the file
 * name says how it behaves, so a test can make a parser that spins, throws, exhausts its heap or exits.
 */
export function extract(bytes: Uint8Array, fileName: string, _limits: ExtractionLimits): Promise<ExtractedDocument> {
  switch (fileName) {
    case 'spin':
      for (;;) {
        // a hostile file that makes the parser loop forever
      }
    case 'throw':
      return Promise.reject(new Error('parser bug quoting the file: secret'));
    case 'refuse':
      return Promise.reject(new ExtractionError(ExtractionErrorCode.NoText, 'The file contains no text.'));
    case 'oom': {
      const hoard: number[][] = [];
      for (;;) hoard.push(new Array<number>(1_000_000).fill(1));
    }
    case 'exit':
      return exitThread();
    default: {
      const text = `${bytes.length} bytes, first ${bytes[0] ?? -1}, thread ${threadId}`;
      return Promise.resolve({ kind: 'text', mediaType: 'text/plain', title: fileName, blocks: [{ kind: 'paragraph', text }], faqRows: [], warnings: [] });
    }
  }
}

/** In a worker thread process.exit ends only the thread. */
function exitThread(): never {
  process.exit(3);
}
