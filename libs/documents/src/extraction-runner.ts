import { assertNever } from '@arbiter/common';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExtractedDocument, ExtractionLimits } from './document.types.js';
import { completeDocument } from './complete-document.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';
import type { OcrPort } from './ocr/ocr-plan.js';
import type { ExtractionWorkerData, ExtractReply, ExtractRequest } from './extraction-worker-protocol.js';

export interface ExtractionRunnerOptions {
  /** Extraction threads at most (default 1): files beyond that wait their turn. */
  poolSize?: number;
  /** Each thread's V8 heap cap in MiB (`resourceLimits.maxOldGenerationSizeMb`, default 1024). */
  maxHeapMb?: number;
  /** A module URL exporting `extract(bytes, fileName, limits)` instead of the built-in dispatch (tests). */
  extractorModule?: URL;
  /** Thread name (diagnostics). */
  name?: string;
  /** Reads PDF pages without a text layer (tesseract-ocr.ts); none: such pages are skipped or PDF_NO_TEXT. */
  ocr?: OcrPort;
}

interface Task {
  bytes: Uint8Array;
  fileName: string;
  limits: ExtractionLimits;
  resolve: (doc: ExtractedDocument) => void;
  reject: (error: Error) => void;
}

/**
 * Runs extractions in `worker_threads` (docs/documents.md "Off the event loop"), so parsing a 50 MiB PDF
 * never blocks the API's event loop. Up to `poolSize` threads, kept between files. A file's bytes are
 * transferred to its thread (the caller's Uint8Array is detached afterwards). A file running longer than
 * `limits.timeoutMs` has its thread terminated (PARSE_TIMEOUT); a thread that dies (out of memory, a
 * crash) fails only its file with an ExtractionError, and the next file gets a fresh thread. A PDF's pages
 * without a text layer are OCRed from this thread by child processes (`ocr`) within the same time limit:
 * on timeout they are killed (docs/documents.md "Scanned PDFs (OCR)").
 */
export class ExtractionRunner {
  private readonly poolSize: number;
  private readonly maxHeapMb: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ExtractionRunnerOptions = {}) {
    this.poolSize = Math.max(1, Math.floor(options.poolSize ?? 1));
    this.maxHeapMb = options.maxHeapMb ?? 1024;
  }

  extract(bytes: Uint8Array, fileName: string, limits: ExtractionLimits): Promise<ExtractedDocument> {
    if (this.closed) return Promise.reject(new Error('the extraction runner is closed'));
    return new Promise<ExtractedDocument>((resolve, reject) => {
      this.queue.push({ bytes, fileName, limits, resolve, reject });
      this.pump();
    });
  }

  /** Terminates every thread; files still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the extraction runner is closed'));
    const workers = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.busy.size < this.poolSize)) {
      const task = this.queue.shift();
      if (task === undefined) return;
      const worker = this.idle.pop() ?? this.spawn();
      this.busy.add(worker);
      this.run(worker, task);
    }
  }

  private run(worker: Worker, task: Task): void {
    const id = this.nextId++;
    // Chosen before the bytes are handed over (they are detached then).
    const kind = crashCode(task.bytes);
    worker.ref();
    // The file's time limit covers its reading on the thread and its OCR after (which the abort stops).
    const stop = new AbortController();
    let released = false;
    let settled = false;
    const release = (keep: boolean): void => {
      if (released) return;
      released = true;
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      this.busy.delete(worker);
      if (keep && !this.closed) {
        worker.unref();
        this.idle.push(worker);
      } else void worker.terminate();
      this.pump();
    };
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop.abort();
      outcome();
    };
    const finish = (keep: boolean, outcome: () => void): void => {
      release(keep);
      settle(outcome);
    };
    const onMessage = (reply: ExtractReply): void => {
      if (reply.id !== id) return;
      switch (reply.type) {
        case 'extracted':
          // The thread is free for the next file while OCR's child processes read this one's pages.
          release(true);
          completeDocument(reply.document, reply.bytes ?? null, this.options.ocr ?? null, stop.signal).then(
            (doc) => settle(() => task.resolve(doc)),
            (error: unknown) => settle(() => task.reject(error instanceof ExtractionError ? error : ocrFailed())),
          );
          return;
        case 'refused':
          finish(true, () => task.reject(new ExtractionError(reply.code, reply.message)));
          return;
        case 'failed':
          // A parser bug may have left the thread in any state: a fresh one takes the next file.
          finish(false, () => task.reject(crashError(kind)));
          return;
        default:
          assertNever(reply, 'extraction reply');
      }
    };
    const onExit = (): void => {
      if (this.closed) finish(false, () => task.reject(new Error('the extraction runner is closed')));
      else finish(false, () => task.reject(crashError(kind)));
    };
    const timer = setTimeout(() => {
      finish(false, () => task.reject(new ExtractionError(ExtractionErrorCode.ParseTimeout, `Reading the file took longer than ${task.limits.timeoutMs} ms.`)));
    }, task.limits.timeoutMs);
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    const bytes = transferable(task.bytes);
    const request: ExtractRequest = { id, bytes, fileName: task.fileName, limits: task.limits };
    try {
      worker.postMessage(request, [bytes.buffer]);
    } catch (error) {
      finish(false, () => task.reject(error instanceof Error ? error : new Error(String(error))));
    }
  }

  private spawn(): Worker {
    const workerData: ExtractionWorkerData = { extractorModule: this.options.extractorModule?.href ?? null };
    const worker = new Worker(workerEntry.url, {
      workerData,
      execArgv: workerEntry.execArgv,
      name: this.options.name ?? 'document-extraction',
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb },
    });
    worker.unref();
    // A file in flight hears of a crash through its 'exit' listener; the error itself (which may quote the
    // file) is not passed on.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.busy.delete(worker);
    });
    return worker;
  }
}

/**
 * Bytes the thread may own: the caller's buffer itself when the view covers all of it (moved, not copied),
 * else — a view into a larger or pooled buffer, which must not be detached — a copy of just the view.
 */
function transferable(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const buffer = bytes.buffer;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength && !isPooled(bytes)) return new Uint8Array(buffer);
  return new Uint8Array(bytes);
}

/** Node's small Buffers share one pool ArrayBuffer; transferring it would detach other Buffers. */
function isPooled(bytes: Uint8Array): boolean {
  return Buffer.isBuffer(bytes) && bytes.buffer.byteLength === Buffer.poolSize;
}

/**
 * A thread that died (out of memory, a native crash) or threw something other than an ExtractionError:
 * the file is reported as unreadable in its own format's terms (docs/documents.md "Off the event loop").
 */
function crashCode(bytes: Uint8Array): ExtractionErrorCode {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024));
  if (head.includes('%PDF-')) return ExtractionErrorCode.PdfCorrupt;
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return ExtractionErrorCode.DocxInvalid;
  return ExtractionErrorCode.TextUndecodable;
}

/** OCR's tools failed on the file (a page pdftoppm or tesseract could not read): not the parser's text. */
function ocrFailed(): ExtractionError {
  return new ExtractionError(
    ExtractionErrorCode.PdfCorrupt,
    'The PDF has pages without a text layer, and OCR could not read them (pdftoppm or tesseract failed).',
  );
}

function crashError(code: ExtractionErrorCode): ExtractionError {
  return new ExtractionError(code, 'The file could not be read: its parser failed (out of memory or an internal error).');
}

/**
 * The compiled worker beside this file (`npm start`: dist/…/extraction.worker.js), or — jest, benchmarks and
 * test children run the .ts sources — the .ts through the repo's SWC loader (the same resolution as
 * libs/intent/src/training/worker-training-runner.ts).
 */
const workerEntry = (() => {
  const self = fileURLToPath(import.meta.url);
  const fromSources = self.endsWith('.ts');
  const url = new URL(`./extraction.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return { url, execArgv: undefined };
  const loader = path.resolve(path.dirname(self), '../../../bench/support/register.mjs');
  const registered = process.execArgv.some((arg) => arg.endsWith('bench/support/register.mjs'));
  return { url, execArgv: registered ? process.execArgv : [...process.execArgv, '--import', loader] };
})();
