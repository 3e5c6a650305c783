/**
 * The one embedding contract every module relies on: vectors are L2-normalized (|norm - 1| < 0.01)
 * and of length `dimension`, so L2 distance lies in [0, 2] and cosine = dot product.
 */
export interface EmbeddingProvider {
  /**
   * Identifies the vector space, e.g. `local:hash-v2:384` or `openai:bge-m3:1024`. It changes
   * whenever vectors would change, so stored vectors with another id must be re-embedded.
   */
  readonly id: string;
  readonly dimension: number;
  /** One vector per text, in order. Blank text → `LlmException(EMBEDDING_EMPTY_TEXT)`. */
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/** Nest injection token of the configured {@link EmbeddingProvider}. */
export const EMBEDDING_PROVIDER = Symbol.for('arbiter.EMBEDDING_PROVIDER');
