import { Embeddings } from '@langchain/core/embeddings';
import { OpenAIEmbeddings } from '@langchain/openai';
import { LlmErrorCode, LlmException } from '../llm.exception.js';
import { resolveApiKey, resolveBaseUrl, type RemoteProvider } from '../provider-url.js';
import type { EmbeddingProvider } from './embedding-provider.js';

export interface RemoteEmbeddingOptions {
  provider: RemoteProvider;
  baseUrl?: string;
  apiKey?: string;
  model: string;
  /** Expected vector length (EMBEDDING_DIMENSION); any other length is an error, never truncated. */
  dimension: number;
  timeoutMs: number;
  /** Retries of a failed batch (default 1). */
  maxRetries?: number;
  /** Texts per request (default 64). */
  batchSize?: number;
}

/**
 * An OpenAI-compatible embeddings server (OpenAI, vLLM serving BGE-M3, Ollama's `/v1`) through
 * langchain's `OpenAIEmbeddings`. Vectors are L2-normalized here so the contract holds whatever
 * the server returns; a vector of another length than `dimension` is a clear error.
 */
export class RemoteEmbeddingProvider extends Embeddings implements EmbeddingProvider {
  readonly id: string;
  readonly dimension: number;
  private readonly client: OpenAIEmbeddings;
  private readonly model: string;

  constructor(options: RemoteEmbeddingOptions) {
    super({ maxRetries: 0 });
    this.dimension = options.dimension;
    this.model = options.model;
    this.id = `${options.provider}:${options.model}:${options.dimension}`;
    const baseURL = resolveBaseUrl(options.provider, options.baseUrl);
    this.client = new OpenAIEmbeddings({
      model: options.model,
      apiKey: resolveApiKey(options.provider, baseURL, options.apiKey, 'EMBEDDING'),
      configuration: baseURL ? { baseURL } : {},
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries ?? 1,
      maxConcurrency: 2,
      batchSize: options.batchSize ?? 64,
      // Only OpenAI's text-embedding-3 family can shorten its vectors on request; other servers
      // (e.g. vLLM/BGE-M3) reject the parameter, so their native size must equal the config.
      ...(/^text-embedding-3/.test(options.model) ? { dimensions: options.dimension } : {}),
    });
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    texts.forEach((text, index) => this.assertText(text, index));
    const vectors = await this.call(() => this.client.embedDocuments(texts));
    if (vectors.length !== texts.length) {
      throw new LlmException(LlmErrorCode.EMBEDDING_FAILED, `asked for ${texts.length} vectors, got ${vectors.length}`);
    }
    return vectors.map((v, i) => this.check(v, i));
  }

  async embedQuery(text: string): Promise<number[]> {
    this.assertText(text);
    return this.check(await this.call(() => this.client.embedQuery(text)));
  }

  private assertText(text: string, index?: number): void {
    if (typeof text !== 'string' || text.trim() === '') {
      throw new LlmException(LlmErrorCode.EMBEDDING_EMPTY_TEXT, index === undefined ? undefined : `input #${index}`, { index });
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof LlmException) throw error;
      throw new LlmException(LlmErrorCode.EMBEDDING_FAILED, `${this.model}: ${(error as Error)?.message ?? String(error)}`, undefined, { cause: error });
    }
  }

  private check(vector: unknown, index?: number): number[] {
    if (!Array.isArray(vector) || vector.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
      throw new LlmException(
        LlmErrorCode.EMBEDDING_INVALID_VECTOR,
        `${this.model} returned a non-numeric vector${index === undefined ? '' : ` for input #${index}`}`,
      );
    }
    const v = vector as number[];
    if (v.length !== this.dimension) {
      throw new LlmException(
        LlmErrorCode.EMBEDDING_DIMENSION_MISMATCH,
        `${this.model} returned ${v.length}-dimensional vectors but EMBEDDING_DIMENSION=${this.dimension}; set EMBEDDING_DIMENSION=${v.length} and re-embed`,
        { expected: this.dimension, actual: v.length, model: this.model },
      );
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm === 0) throw new LlmException(LlmErrorCode.EMBEDDING_INVALID_VECTOR, `${this.model} returned a zero vector`);
    return v.map((x) => x / norm);
  }
}
