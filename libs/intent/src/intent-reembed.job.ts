import { Inject, Injectable } from '@nestjs/common';
import { JobHandler, resumedTotal, type BatchSizePayload, type JobContext, type JobRunner } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { INTENT_REEMBED_JOB, IntentRulesService } from './intent-rules.service.js';

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
    await ctx.setTotal(resumedTotal(ctx.processed, await ctx.step(() => this.rules.remainingReembed(ctx.tenantId, checkpoint))));
    const done = await this.rules.reembed(ctx.tenantId, checkpoint, ctx.payload.batchSize ?? 50, {
      step: ctx.step,
      progress: (processed, cp) => ctx.progress({ processed, checkpoint: cp }),
    });
    await ctx.progress({ details: { rules: done, space: this.provider.id } });
  }
}
