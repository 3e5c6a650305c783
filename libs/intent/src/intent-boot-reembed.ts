import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { asTenantId } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { IntentRepository } from './intent.repository.js';
import { INTENT_REEMBED_JOB } from './intent-rules.service.js';

/**
 * At boot, a re-embed run for every tenant whose stored example embeddings belong to another provider (the
 * embedding provider changed) — re-embedding happens in the background ({@link IntentReembedJob}), never per request.
 */
@Injectable()
export class IntentBootReembed implements OnApplicationBootstrap {
  private readonly logger = new Logger('Intent');

  constructor(
    private readonly repository: IntentRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly jobs: JobsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const tenants = await this.repository.tenantsWithStaleEmbeddings(this.provider.id);
      for (const tenantId of tenants) await this.jobs.enqueue(asTenantId(tenantId), INTENT_REEMBED_JOB, {}, { trigger: 'event' });
      if (tenants.length > 0) this.logger.log({ msg: 'intent re-embed queued (embedding provider changed)', tenants: tenants.length, space: this.provider.id });
    } catch (error) {
      this.logger.warn({ msg: 'could not check intent embeddings', err: error instanceof Error ? error.message : String(error) });
    }
  }
}
