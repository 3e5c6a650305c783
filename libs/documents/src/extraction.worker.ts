import { parentPort, workerData } from 'node:worker_threads';
import { needsOcrBytes } from './complete-document.js';
import { readDocument } from './extract-document.js';
import { ExtractionError } from './extraction-error.js';
import type { ExtractFunction, ExtractionWorkerData, ExtractReply, ExtractRequest } from './extraction-worker-protocol.js';

/**
 * The extraction thread (see extraction-runner.ts, docs/documents.md "Off the event loop"): reads one
 * file at a time (readDocument: sniffing, then the format's extractor) and answers with the document or the
 * ExtractionError's code and message; a PDF with pages without a text layer comes back with its bytes, for
 * the runner's OCR. A parser that spins or runs out of memory stalls or kills only this thread; the runner
 * terminates and replaces it.
 */
const port = parentPort;
if (port === null) throw new Error('extraction.worker must run in a worker thread');

const { extractorModule } = (workerData ?? { extractorModule: null }) as ExtractionWorkerData;

const extractorLoaded: Promise<ExtractFunction> =
  extractorModule === null
    ? Promise.resolve<ExtractFunction>(readDocument)
    : import(extractorModule).then((mod: { extract?: ExtractFunction }) => {
        if (typeof mod.extract !== 'function') throw new Error(`${extractorModule} exports no extract function`);
        return mod.extract;
      });

port.on('message', (request: ExtractRequest) => {
  void handle(request).then((reply) => port.postMessage(reply, reply.type === 'extracted' && reply.bytes ? [reply.bytes.buffer] : []));
});

async function handle(request: ExtractRequest): Promise<ExtractReply> {
  try {
    const extract = await extractorLoaded;
    const document = await extract(request.bytes, request.fileName, request.limits);
    // The bytes go back (moved, not copied) only when OCR may need them: the PDF parser read its own copy.
    return { type: 'extracted', id: request.id, document, ...(needsOcrBytes(document) ? { bytes: request.bytes } : {}) };
  } catch (error) {
    if (error instanceof ExtractionError) return { type: 'refused', id: request.id, code: error.code, message: error.message };
    return { type: 'failed', id: request.id };
  }
}
