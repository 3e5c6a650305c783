// pdfjs-dist ships no types for its worker module; pdf.ts only imports it for its side effect
// (it sets globalThis.pdfjsWorker so pdfjs runs in-process, docs/documents.md "PDF").
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
