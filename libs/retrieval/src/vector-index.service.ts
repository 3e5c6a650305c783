import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider, isHashingEmbedding } from '@arbiter/llm';
import type { VectorSpace } from './knowledge.repository.js';
import { hnswIndexName } from './vector-sql.js';
import { VectorSearchRepository } from './vector-search.repository.js';

/** pgvector's HNSW supports `vector` up to 2000 dimensions; beyond, lookups scan exactly. */
export const MAX_HNSW_DIMENSION = 2000;

/**
 * Ensures the HNSW (L2) partial expression index for the configured provider's dimension exists, so
 * changing the provider/dimension needs no migration edit. Idempotent and safe with replicas booting together.
 * The hashing embedder's space has none: lookups there rank their lexical candidates by exact distance, so an index
 * would only cost every chunk write its graph insertion (docs/hot-paths.md "No ANN search in the hashing embedder's
 * space"); one left from an earlier provider of the same dimension is dropped.
 */
@Injectable()
export class VectorIndexService implements OnModuleInit {
  private readonly logger = new Logger('VectorIndex');

  constructor(
    private readonly repository: VectorSearchRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.ensureIndex({ model: this.provider.id, dim: this.provider.dimension });
  }

  /** Returns true when an HNSW index serves the space's dimension after the call. */
  async ensureIndex(space: VectorSpace): Promise<boolean> {
    const { dim } = space;
    if (isHashingEmbedding(space.model)) {
      if (await this.repository.dropVectorIndex(dim))
        this.logger.log({ msg: 'dropped HNSW index: the hashing space is searched without one', index: hnswIndexName(dim) });
      return false;
    }
    if (dim > MAX_HNSW_DIMENSION) {
      this.logger.warn({ msg: 'embedding dimension exceeds HNSW limit; lookups use exact search', dim });
      return false;
    }
    const name = hnswIndexName(dim);
    if (await this.repository.indexExists(name)) return true;
    try {
      await this.repository.createVectorIndex(dim);
      this.logger.log({ msg: 'created HNSW index', index: name });
    } catch (error) {
      // Another replica created it at the same moment.
      if (!(await this.repository.indexExists(name))) throw error;
    }
    return true;
  }
}
