import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings';
import { mapSliced } from '@arbiter/common';
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
    this.embedder.warm(); // once per process, at boot rather than inside the first request
    this.id = this.embedder.id;
    this.dimension = this.embedder.dimension;
  }

  /** Computed on this thread, so it yields to the event loop every ~10 ms of work (a 2 MiB import must not stall other requests). */
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return mapSliced(texts, (text, index) =>
      this.wrap(() => {
        if (typeof text !== 'string' || text.trim() === '') throw new EmptyEmbeddingTextError(index);
        return this.embedder.embed(text);
      }),
    );
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
