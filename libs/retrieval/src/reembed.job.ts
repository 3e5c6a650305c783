import { Inject, Injectable } from '@nestjs/common';
import { JobHandler, resumedTotal, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { RetrievalJobs } from './retrieval-jobs.service.js';

export const REEMBED_JOB = 'retrieval.reembed' satisfies JobName;

/** `retrieval.reembed` (manual, resumable: the checkpoint is the last document id done). */
@Injectable()
@JobHandler(REEMBED_JOB)
export class ReembedJob implements JobRunner<typeof REEMBED_JOB> {
  constructor(
    private readonly work: RetrievalJobs,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  async run(ctx: JobContext<{ batchSize?: number }>): Promise<void> {
    const checkpoint = typeof ctx.checkpoint === 'string' ? ctx.checkpoint : null;
    await ctx.setTotal(resumedTotal(ctx.processed, await ctx.step(() => this.work.remainingReembed(ctx.tenantId, checkpoint))));
    const done = await this.work.reembed(ctx.tenantId, checkpoint, ctx.payload.batchSize ?? 50, {
      step: ctx.step,
      progress: (processed, cp) => ctx.progress({ processed, checkpoint: cp }),
    });
    await ctx.progress({ details: { documents: done, space: this.provider.id } });
  }
}
