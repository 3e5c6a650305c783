export * from './document.types.js';
export * from './extraction-error.js';
export * from './document-chunker.js';
export * from './extract-document.js';
export * from './sniff.js';
export * from './extraction-runner.js';
