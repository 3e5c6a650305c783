import { Inject, Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { Tx } from '@arbiter/database';
import { EMBEDDING_PROVIDER, type EmbeddingProvider, isHashingEmbedding } from '@arbiter/llm';
import type { VectorSpace } from './knowledge.repository.js';
import { CandidateSearchRepository } from './candidate-search.repository.js';
import { analyzeText, CONTENT_WORDS } from './lexical/text-analyzer.js';
import { bilingualDictionary } from './lexical/bilingual-dictionary.js';
import { translateQueryTerms } from './lexical/cross-language.js';
import { rankByDistance } from './lexical/distance-rerank.js';
import { assembleCandidates, exactHits, type HitChunk, type HybridCandidate } from './lexical/hybrid.js';
import { EXACT_SEARCH_MAX_CHUNKS } from './nearest-chunks-sql.js';
import { normalizeSimilarity } from './relevance.js';
import type { EffectiveRetrievalSettings } from './retrieval-settings.service.js';
import type { MetadataFilter } from './metadata-filter.js';
import type { ChunkHit } from './vector-search.repository.js';

/** Chunks asked from each index: enough documents for topK = 20 plus action-memory fallbacks. */
const VECTOR_CHUNKS = 40;
const LEXICAL_CHUNKS = 40;

export interface HybridSearchRequest {
  query: string;
  /** The query's embedding in the provider's space (embedded before any transaction). */
  vector: readonly number[];
  /** The embedding of the query's translation ({@link HybridSearchService.embedTranslation}), when it has one. */
  translatedVector?: readonly number[] | null;
  domain?: string;
  /** Metadata filter applied before ranking (docs/retrieval.md "Metadata filters"). */
  filter?: MetadataFilter;
  /** A grade fit's lookup: collect the near-duplicate overlaps whatever the active model reads of them. */
  collectOverlaps?: boolean;
}

export interface HybridSearchOutcome {
  candidates: HybridCandidate[];
  /** Similarity of the nearest chunk of the vector search (`l1_top_similarity`, docs/spec/retrieval.md §5). */
  vectorTopSimilarity: number | null;
  exactMatchCount: number;
}

/**
 * Hybrid candidate generation (docs/retrieval.md "Hybrid search"): exact (L0) hits, the vector index
 * and the BM25 lexical index, read in one statement (in the caller's transaction or on its own), fused and calibrated by
 * {@link assembleCandidates}. No memory, no side effects: the lookup and the grade fit share it.
 */
@Injectable()
export class HybridSearchService {
  constructor(
    private readonly candidates: CandidateSearchRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  get space(): VectorSpace {
    return { model: this.provider.id, dim: this.provider.dimension };
  }

  embed(query: string): Promise<number[]> {
    return this.provider.embedQuery(query);
  }

  /**
   * The embedding of the query's translation (docs/retrieval.md "Cross-language retrieval"), null when no
   * word of it is in the dictionary. Before any transaction, like {@link embed}.
   */
  async embedTranslation(query: string): Promise<number[] | null> {
    const { text } = translateQueryTerms(analyzeText(query, CONTENT_WORDS), bilingualDictionary());
    return text ? this.provider.embedQuery(text) : null;
  }

  /** `tx`: read in the caller's transaction; without it, one statement of its own (the lookup). */
  async search(tenantId: TenantId, request: HybridSearchRequest, settings: EffectiveRetrievalSettings, tx?: Tx): Promise<HybridSearchOutcome> {
    const space = this.space;
    const terms = [...new Set(analyzeText(request.query))];
    // Cross-language retrieval (docs/retrieval.md): the query's terms translated through CC-CEDICT are
    // searched as a list of their own, so a Chinese question finds an English document and back. Its content
    // words only: `the` translates to nothing worth searching.
    const translation = translateQueryTerms(analyzeText(request.query, CONTENT_WORDS), bilingualDictionary());
    const scope = { domain: request.domain, filter: request.filter };
    // The hashing embedder's vectors are hashed words: an ANN index over them finds fewer of the nearest chunks than
    // ranking the lexical candidates by exact distance does (docs/hot-paths.md "No ANN search in the hashing embedder's space").
    const annSearch = !isHashingEmbedding(space.model);
    // Vector and lexical candidates in one statement (docs/hot-paths.md "Chat turn"). The translation's chunks are
    // measured against the translated query's vector: a document in the other language is far from the
    // question's own words in any vector space without cross-language training.
    const {
      vector: searched,
      own: lexical,
      translated,
    } = await this.candidates.search(
      tenantId,
      {
        terms,
        translation: translation.terms.length ? { terms: translation.terms, vector: request.translatedVector ?? request.vector } : null,
        space,
        vector: request.vector,
        vectorLimit: VECTOR_CHUNKS,
        annSearch,
        lexicalLimit: LEXICAL_CHUNKS,
        scope,
      },
      tx,
    );
    // The tenant's size is the statement's own reading (the same row decides the exact branch).
    const vectorHits: ChunkHit[] =
      annSearch || lexical.chunkCount <= EXACT_SEARCH_MAX_CHUNKS ? searched : rankByDistance([lexical.hits, translated?.hits ?? []], VECTOR_CHUNKS);
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
    const exact = exactHits(request.query, [...lexical.hits, ...(translated?.hits ?? []), ...vectorHits]);
    const candidates = assembleCandidates({
      query: request.query,
      vector: vectorHits.map(toChunk),
      lexical: lexical.hits,
      exact,
      queryTerms: terms,
      translation: translated ? { lexical: translated.hits, idf: translated.idf, alternatives: translation.alternatives } : undefined,
      idf: lexical.idf,
      chunkCount: lexical.chunkCount,
      fusion: settings.fusion,
      calibration: settings.calibration,
      normalization: settings.normalization,
      collectOverlaps: request.collectOverlaps,
      hashedVectors: !annSearch,
    });
    return {
      candidates,
      vectorTopSimilarity: vectorHits.length ? normalizeSimilarity(vectorHits[0].distance, settings.normalization.maxL2Distance) : null,
      exactMatchCount: exact.length,
    };
  }
}
