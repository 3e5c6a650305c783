import type { ExtractedDocument, ExtractionLimits } from './document.types.js';
import type { ExtractionErrorCode } from './extraction-error.js';

/** The extraction thread's messages (extraction-runner.ts ↔ extraction.worker.ts; docs/documents.md "Off the event loop"). */

/** What a worker is started with. */
export interface ExtractionWorkerData {
  /**
   * A module URL exporting `extract(bytes, fileName, limits)`; null = readDocument (every format). Tests point it at
   * a function that spins or crashes.
   */
  extractorModule: string | null;
}

export interface ExtractRequest {
  id: number;
  /** The file's bytes, transferred (the sender's copy is detached). */
  bytes: Uint8Array<ArrayBuffer>;
  fileName: string;
  limits: ExtractionLimits;
}

export type ExtractReply =
  /** `bytes`: the file's bytes, transferred back, when the document has pages OCR may read (completeDocument). */
  | { type: 'extracted'; id: number; document: ExtractedDocument; bytes?: Uint8Array<ArrayBuffer> }
  /** An ExtractionError: its code and client-safe message. */
  | { type: 'refused'; id: number; code: ExtractionErrorCode; message: string }
  /** Anything else thrown: a parser bug, not the file's fault. Its text is never shown to a client. */
  | { type: 'failed'; id: number };

export type ExtractFunction = (bytes: Uint8Array, fileName: string, limits: ExtractionLimits) => Promise<ExtractedDocument>;
