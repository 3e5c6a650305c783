import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { KnowledgeRepository, type ChunkHit, type VectorSpace } from './knowledge.repository.js';
import { LexicalRepository } from './lexical.repository.js';
import { analyzeText } from './lexical/text-analyzer.js';
import { assembleCandidates, exactHits, type HitChunk, type HybridCandidate } from './lexical/hybrid.js';
import { normalizeSimilarity } from './relevance.js';
import type { EffectiveRetrievalSettings } from './retrieval-settings.service.js';
import type { MetadataFilter } from './metadata-filter.js';

/** Chunks asked from each index: enough documents for topK = 20 plus action-memory fallbacks. */
const VECTOR_CHUNKS = 40;
const LEXICAL_CHUNKS = 40;

export interface HybridSearchRequest {
  query: string;
  /** The query's embedding in the provider's space (embedded before any transaction). */
  vector: readonly number[];
  domain?: string;
  /** Metadata filter applied before ranking (docs/retrieval.md "Metadata filters"). */
  filter?: MetadataFilter;
}

export interface HybridSearchOutcome {
  candidates: HybridCandidate[];
  /** Seed similarity of the nearest chunk of the vector search (the seed's `l1TopSimilarity`). */
  vectorTopSimilarity: number | null;
  exactMatchCount: number;
}

/**
 * Hybrid candidate generation (docs/retrieval.md "Hybrid search"): exact (L0) hits, the vector index
 * and the BM25 lexical index, read in the caller's transaction or as single statements, fused and calibrated by
 * {@link assembleCandidates}. No memory, no side effects: the lookup and the grade fit share it.
 */
@Injectable()
export class HybridSearchService {
  constructor(
    private readonly knowledge: KnowledgeRepository,
    private readonly lexical: LexicalRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  get space(): VectorSpace {
    return { model: this.provider.id, dim: this.provider.dimension };
  }

  embed(query: string): Promise<number[]> {
    return this.provider.embedQuery(query);
  }

  /** `tx`: read in the caller's transaction; without it, each index is one statement of its own (the lookup). */
  async search(tenantId: TenantId, request: HybridSearchRequest, settings: EffectiveRetrievalSettings, tx?: EntityManager): Promise<HybridSearchOutcome> {
    const space = this.space;
    const terms = [...new Set(analyzeText(request.query))];
    const scope = { domain: request.domain, filter: request.filter };
    const vectorHits = await this.knowledge.nearestChunks(tenantId, space, request.vector, VECTOR_CHUNKS, scope, tx);
    const lexical = await this.lexical.search(tenantId, terms, space, request.vector, LEXICAL_CHUNKS, scope, tx);
    const toChunk = (h: ChunkHit): HitChunk => ({
      documentId: h.documentId,
      filePath: h.filePath,
      title: h.title,
      domain: h.domain,
      content: h.content,
      distance: h.distance,
      fileName: h.fileName,
      page: h.page,
      pageEnd: h.pageEnd,
      section: h.section,
      keywords: h.keywords,
    });
    const exact = exactHits(request.query, [...lexical.hits, ...vectorHits]);
    const candidates = assembleCandidates({
      query: request.query,
      vector: vectorHits.map(toChunk),
      lexical: lexical.hits,
      exact,
      queryTerms: terms,
      idf: lexical.idf,
      chunkCount: lexical.chunkCount,
      fusion: settings.fusion,
      calibration: settings.calibration,
      normalization: settings.normalization,
    });
    return {
      candidates,
      vectorTopSimilarity: vectorHits.length ? normalizeSimilarity(vectorHits[0].distance, settings.normalization.maxL2Distance) : null,
      exactMatchCount: exact.length,
    };
  }
}
