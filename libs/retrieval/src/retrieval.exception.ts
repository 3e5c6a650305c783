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
  IMPORT_NOT_FOUND = 'IMPORT_NOT_FOUND',
  INVALID_FILTER = 'INVALID_FILTER',
  CHUNK_NOT_FOUND = 'CHUNK_NOT_FOUND',
  INVALID_CHUNK_EDIT = 'INVALID_CHUNK_EDIT',
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
  [RetrievalErrorCode.IMPORT_NOT_FOUND]: { status: 404, message: 'Knowledge import not found' },
  [RetrievalErrorCode.INVALID_FILTER]: { status: 400, message: 'Invalid metadata filter' },
  [RetrievalErrorCode.CHUNK_NOT_FOUND]: { status: 404, message: 'Knowledge chunk not found' },
  [RetrievalErrorCode.INVALID_CHUNK_EDIT]: { status: 400, message: 'Invalid chunk edit' },
};

export class RetrievalException extends DomainException<RetrievalErrorCode> {
  constructor(code: RetrievalErrorCode, detail?: string, details?: unknown) {
    super(code, RETRIEVAL_ERRORS[code], detail, details);
  }
}
