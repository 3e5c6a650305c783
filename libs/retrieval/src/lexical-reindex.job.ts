import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { asTenantId } from '@arbiter/common';
import { JobHandler, JobsService, resumedTotal, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { LexicalRepository } from './lexical.repository.js';
import { LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { RetrievalJobs } from './retrieval-jobs.service.js';

export const LEXICAL_REINDEX_JOB = 'retrieval.lexical-reindex' satisfies JobName;

/** `retrieval.lexical-reindex` (resumable: the checkpoint is the last document id done). */
@Injectable()
@JobHandler(LEXICAL_REINDEX_JOB)
export class LexicalReindexJob implements JobRunner<typeof LEXICAL_REINDEX_JOB>, OnApplicationBootstrap {
  constructor(
    private readonly work: RetrievalJobs,
    private readonly lexical: LexicalRepository,
    private readonly jobs: JobsService,
  ) {}

  /**
   * Documents stored before the lexical index existed, or indexed by an older analyzer, are
   * (re)indexed by a job enqueued once per tenant and analyzer version; lookups meanwhile find them
   * through the vector index and exact hits.
   */
  async onApplicationBootstrap(): Promise<void> {
    for (const tenantId of await this.lexical.tenantsWithStaleDocuments(LEXICAL_ANALYZER_VERSION)) {
      await this.jobs.enqueue(
        asTenantId(tenantId),
        LEXICAL_REINDEX_JOB,
        {},
        { scheduleKey: `${LEXICAL_REINDEX_JOB}@v${LEXICAL_ANALYZER_VERSION}@${tenantId}` },
      );
    }
  }

  async run(ctx: JobContext<{ batchSize?: number }>): Promise<void> {
    const checkpoint = typeof ctx.checkpoint === 'string' ? ctx.checkpoint : null;
    await ctx.setTotal(resumedTotal(ctx.processed, await ctx.step(() => this.work.remainingLexical(ctx.tenantId, checkpoint))));
    const done = await this.work.reindexLexical(ctx.tenantId, checkpoint, ctx.payload.batchSize ?? 100, {
      step: ctx.step,
      progress: (processed, cp) => ctx.progress({ processed, checkpoint: cp }),
    });
    await ctx.progress({ details: { documents: done, analyzerVersion: LEXICAL_ANALYZER_VERSION } });
  }
}
