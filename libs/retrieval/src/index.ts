// Public surface of the retrieval lib.
// Pure logic (no Nest, no database): grading, confidence, chunking, action-memory decisions.
export * from './relevance.js';
export * from './retrieval-confidence.js';
export * from './chunker.js';
export * from './action-memory.js';
export * from './citation.js';
export * from './metadata-filter.js';
export * from './vector-sql.js';
export { EXACT_SEARCH_MAX_CHUNKS, nearestChunksQuery } from './nearest-chunks-sql.js';
export * from './lexical/text-analyzer.js';
export * from './lexical/bm25.js';
export * from './lexical/fusion.js';
export * from './lexical/fusion-settings.js';
export * from './lexical/calibration.js';
export * from './lexical/answerability.js';
export * from './lexical/calibration-fit.js';
export * from './lexical/default-calibration.js';
export * from './lexical/hybrid.js';
export * from './lexical/indexing.js';
export * from './prompts/executor-prompt.js';
// Nest module and its services.
export * from './retrieval.exception.js';
export * from './entities/index.js';
export * from './dto/knowledge.dto.js';
export {
  KnowledgeService,
  normalizeDocument,
  MAX_DOCUMENT_BYTES,
  MAX_BULK_ITEMS,
  unitVector,
  type UpsertResult,
  type UpsertStatus,
  type BulkItemResult,
} from './knowledge.service.js';
export { GroupWriteService } from './group-write.service.js';
export { GROUP_WRITE_CHUNKS } from './write-groups.js';
export { LookupService, LOOKUP_TOOL_NAME, requestFilter, type LookupOptions, type LookupResult, type LookupResultItem } from './lookup.service.js';
export { RetrievalSettingsService, type EffectiveRetrievalSettings } from './retrieval-settings.service.js';
export { MEMORY_EXPIRY_JOB } from './memory-expiry.job.js';
export { REEMBED_JOB } from './reembed.job.js';
export { LEXICAL_REINDEX_JOB } from './lexical-reindex.job.js';
export { HybridSearchService, type HybridSearchOutcome, type HybridSearchRequest } from './hybrid-search.service.js';
export { GradingService, MIN_FIT_PAIRS, MIN_FIT_ANSWERABLE, MIN_FIT_UNANSWERABLE, type GradingView, type GradingFitResult } from './grading.service.js';
export { LexicalRepository } from './lexical.repository.js';
export { pageRangeMeets } from './lexical/label-match.js';
export { KnowledgeChunksService } from './knowledge-chunks.service.js';
export { type ChunkView } from './knowledge-chunk.repository.js';
export { KnowledgeRepository, type DocumentRef, type DocumentSummary, type VectorSpace } from './knowledge.repository.js';
export { VectorSearchRepository, type ChunkHit } from './vector-search.repository.js';
export { DEMO_KNOWLEDGE, type DemoDocument } from './demo-knowledge.js';
export * from './retrieval.module.js';
export { IMPORT_JOB } from './knowledge-import.job-name.js';
export { KnowledgeImportJob } from './knowledge-import.job.js';
export { KnowledgeImportService, MAX_IMPORT_ITEMS } from './knowledge-import.service.js';
