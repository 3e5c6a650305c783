import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { asTenantId } from '@arbiter/common';
import { JobHandler, JobsService, resumedTotal, type BatchSizePayload, type JobContext, type JobRunner } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { TenantSeeds } from '@arbiter/tenancy';
import { IntentRepository } from './intent.repository.js';
import { INTENT_REEMBED_JOB, IntentRulesService } from './intent-rules.service.js';
import { DEMO_INTENT_RULES } from './intent.seeds.js';
import { jiebaSegmenter } from './routing/index.js';

/** `intent.reembed`: re-embeds the tenant's rule examples (resumable: checkpoint = last rule id). */
@Injectable()
@JobHandler(INTENT_REEMBED_JOB)
export class IntentReembedJob implements JobRunner<typeof INTENT_REEMBED_JOB> {
  constructor(
    private readonly rules: IntentRulesService,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  async run(ctx: JobContext<BatchSizePayload>): Promise<void> {
    const checkpoint = typeof ctx.checkpoint === 'string' ? ctx.checkpoint : null;
    await ctx.setTotal(resumedTotal(ctx.processed, await this.rules.remainingReembed(ctx.tenantId, checkpoint)));
    const done = await this.rules.reembed(ctx.tenantId, checkpoint, ctx.payload.batchSize ?? 50, (processed, cp) =>
      ctx.progress({ processed, checkpoint: cp }),
    );
    await ctx.progress({ details: { rules: done, space: this.provider.id } });
  }
}

/**
 * Module wiring: the demo intent set and, at boot, a re-embed run for every tenant whose stored
 * example embeddings belong to another provider (the embedding provider changed) — re-embedding
 * happens in the background, never per request.
 */
@Injectable()
export class IntentLifecycle implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Intent');

  constructor(
    private readonly rules: IntentRulesService,
    private readonly repository: IntentRepository,
    private readonly seeds: TenantSeeds,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly jobs: JobsService,
  ) {}

  onModuleInit(): void {
    // The routing core's segmenter dictionary loads now, not inside the first route or evaluation
    // (~300 ms of the API's thread; README, Faults and outages).
    jiebaSegmenter();
    this.seeds.register('intent', async (tenantId) => {
      for (const rule of DEMO_INTENT_RULES) await this.rules.create(tenantId, rule);
    });
  }

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
