import { DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum RetrievalErrorCode {
  DOCUMENT_NOT_FOUND = 'DOCUMENT_NOT_FOUND',
  DOCUMENT_TOO_LARGE = 'DOCUMENT_TOO_LARGE',
  DOCUMENT_EMPTY = 'DOCUMENT_EMPTY',
  INVALID_BULK_BODY = 'INVALID_BULK_BODY',
  INVALID_RETRIEVAL_CONFIG = 'INVALID_RETRIEVAL_CONFIG',
  UNSUPPORTED_EMBEDDING_DIMENSION = 'UNSUPPORTED_EMBEDDING_DIMENSION',
  TOO_FEW_LABELLED_PAIRS = 'TOO_FEW_LABELLED_PAIRS',
  UNKNOWN_LABEL_PATHS = 'UNKNOWN_LABEL_PATHS',
  /** A label names a document of many sections without saying where the answer is, or a location without a document. */
  INVALID_LABEL_LOCATION = 'INVALID_LABEL_LOCATION',
  IMPORT_NOT_FOUND = 'IMPORT_NOT_FOUND',
  /** Every file of an upload was refused at the door: status by reason (docs/documents.md "Upload"). */
  FILES_UNSUPPORTED = 'FILES_UNSUPPORTED',
  FILES_TOO_LARGE = 'FILES_TOO_LARGE',
  FILES_REFUSED = 'FILES_REFUSED',
  UPLOAD_NOT_MULTIPART = 'UPLOAD_NOT_MULTIPART',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  INVALID_IDEMPOTENCY_KEY = 'INVALID_IDEMPOTENCY_KEY',
  FILE_NOT_FOUND = 'FILE_NOT_FOUND',
  INVALID_FILTER = 'INVALID_FILTER',
  CHUNK_NOT_FOUND = 'CHUNK_NOT_FOUND',
  INVALID_CHUNK_EDIT = 'INVALID_CHUNK_EDIT',
  /** A large file's document was being written in groups when another write of its path took over (docs/hot-paths.md "A large file's write in groups"). */
  DOCUMENT_WRITE_SUPERSEDED = 'DOCUMENT_WRITE_SUPERSEDED',
}

export const RETRIEVAL_ERRORS: Record<RetrievalErrorCode, DomainErrorSpec> = {
  [RetrievalErrorCode.DOCUMENT_NOT_FOUND]: { status: 404, message: 'Knowledge document not found' },
  [RetrievalErrorCode.DOCUMENT_TOO_LARGE]: { status: 400, message: 'Document content exceeds 2 MiB' },
  [RetrievalErrorCode.DOCUMENT_EMPTY]: { status: 400, message: 'Document has no text to index' },
  [RetrievalErrorCode.INVALID_BULK_BODY]: { status: 400, message: 'Bulk import body must be a JSON array of documents or NDJSON' },
  [RetrievalErrorCode.INVALID_RETRIEVAL_CONFIG]: { status: 400, message: 'Invalid retrieval configuration' },
  [RetrievalErrorCode.UNSUPPORTED_EMBEDDING_DIMENSION]: { status: 503, message: 'The embedding dimension is not supported by the vector index' },
  [RetrievalErrorCode.TOO_FEW_LABELLED_PAIRS]: { status: 400, message: 'Too few labelled pairs to fit the grade' },
  [RetrievalErrorCode.UNKNOWN_LABEL_PATHS]: { status: 400, message: 'Labels name documents that are not in the knowledge base' },
  [RetrievalErrorCode.INVALID_LABEL_LOCATION]: {
    status: 400,
    message: 'Labels of documents made from files with sections must say where the answer is (pages or section); only answerable labels have one',
  },
  [RetrievalErrorCode.DOCUMENT_WRITE_SUPERSEDED]: { status: 409, message: 'Another write of this document took over while it was being written' },
  [RetrievalErrorCode.IMPORT_NOT_FOUND]: { status: 404, message: 'Knowledge import not found' },
  [RetrievalErrorCode.FILES_UNSUPPORTED]: { status: 415, message: 'No file of the upload has a supported type (PDF, DOCX, HTML, Markdown, text, CSV or XLSX)' },
  [RetrievalErrorCode.FILES_TOO_LARGE]: { status: 413, message: 'Every file of the upload is over a limit' },
  [RetrievalErrorCode.FILES_REFUSED]: { status: 400, message: 'Every file of the upload was refused' },
  [RetrievalErrorCode.UPLOAD_NOT_MULTIPART]: { status: 415, message: 'Send the files as multipart/form-data' },
  [RetrievalErrorCode.IDEMPOTENCY_KEY_REUSED]: { status: 422, message: 'The Idempotency-Key was already used for another upload' },
  [RetrievalErrorCode.INVALID_IDEMPOTENCY_KEY]: { status: 400, message: 'Idempotency-Key must be 1-200 printable ASCII characters' },
  [RetrievalErrorCode.FILE_NOT_FOUND]: { status: 404, message: 'The document was not made from an uploaded file' },
  [RetrievalErrorCode.INVALID_FILTER]: { status: 400, message: 'Invalid metadata filter' },
  [RetrievalErrorCode.CHUNK_NOT_FOUND]: { status: 404, message: 'Knowledge chunk not found' },
  [RetrievalErrorCode.INVALID_CHUNK_EDIT]: { status: 400, message: 'Invalid chunk edit' },
};

export class RetrievalException extends DomainException<RetrievalErrorCode> {
  constructor(code: RetrievalErrorCode, detail?: string, details?: unknown) {
    super(code, RETRIEVAL_ERRORS[code], detail, details);
  }
}
