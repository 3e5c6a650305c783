import { assertNever } from '@arbiter/common';
import type { AppConfig } from '@arbiter/config';
import type { EmbeddingProvider } from './embedding-provider.js';
import { LocalEmbeddingProvider } from './local-embedding-provider.js';
import { RemoteEmbeddingProvider } from './remote-embedding-provider.js';

/** Builds the provider `EMBEDDING_PROVIDER` names (`local` by default). */
export function createEmbeddingProvider(embedding: AppConfig['embedding']): EmbeddingProvider {
  const provider = embedding.provider;
  switch (provider) {
    case 'local':
      return new LocalEmbeddingProvider({ dimension: embedding.dimension });
    case 'openai':
    case 'ollama':
      return new RemoteEmbeddingProvider({
        provider,
        baseUrl: embedding.baseUrl,
        apiKey: embedding.apiKey,
        model: embedding.model,
        dimension: embedding.dimension,
        timeoutMs: embedding.timeoutMs,
      });
    default:
      return assertNever(provider, 'EMBEDDING_PROVIDER');
  }
}
