import { Module } from '@nestjs/common';
import { CommonModule } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { createEmbeddingProvider } from './embedding/create-embedding-provider.js';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from './embedding/embedding-provider.js';
import { LlmService } from './llm.service.js';

/**
 * Provides `LlmService` and the `EMBEDDING_PROVIDER` token (an {@link EmbeddingProvider}), both built
 * from `AppConfig` (`config.llm`, `config.embedding`). Import it in every module that injects them.
 */
@Module({
  imports: [CommonModule],
  providers: [
    LlmService,
    { provide: EMBEDDING_PROVIDER, inject: [AppConfig], useFactory: (config: AppConfig): EmbeddingProvider => createEmbeddingProvider(config.embedding) },
  ],
  exports: [LlmService, EMBEDDING_PROVIDER],
})
export class LlmModule {}
