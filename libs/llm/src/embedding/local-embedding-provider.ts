import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings';
import { LlmErrorCode, LlmException } from '../llm.exception.js';
import type { EmbeddingProvider } from './embedding-provider.js';
import { EmptyEmbeddingTextError, LocalEmbedder } from './local-embedder.js';

/** The built-in {@link LocalEmbedder} as a langchain `Embeddings` (usable by langchain vector stores). */
export class LocalEmbeddingProvider extends Embeddings implements EmbeddingProvider {
  readonly id: string;
  readonly dimension: number;
  private readonly embedder: LocalEmbedder;

  constructor(options: { dimension?: number } & Partial<EmbeddingsParams> = {}) {
    const { dimension, ...params } = options;
    super(params);
    this.embedder = new LocalEmbedder({ dimension });
    this.id = this.embedder.id;
    this.dimension = this.embedder.dimension;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return this.wrap(() => this.embedder.embedMany(texts));
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.wrap(() => this.embedder.embed(text));
  }

  private wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof EmptyEmbeddingTextError) throw new LlmException(LlmErrorCode.EMBEDDING_EMPTY_TEXT, error.message, { index: error.index });
      throw error;
    }
  }
}
