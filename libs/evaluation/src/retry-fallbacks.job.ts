import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext, type JobRunner, type NoPayload } from '@arbiter/jobs';
import { LlmService } from '@arbiter/llm';
import { EvaluationService, RETRY_FALLBACKS_JOB } from './evaluation.service.js';

/** `evaluation.retry-fallbacks`: scheduled only when an LLM is configured (nothing to retry otherwise); manual runs always work. */
@Injectable()
@JobHandler(RETRY_FALLBACKS_JOB)
export class RetryFallbacksJob implements JobRunner<typeof RETRY_FALLBACKS_JOB> {
  constructor(
    private readonly evaluation: EvaluationService,
    private readonly llm: LlmService,
  ) {}

  isScheduled(): boolean {
    return this.llm.enabled;
  }

  run(ctx: JobContext<NoPayload>): Promise<void> {
    return this.evaluation.runRetryFallbacksJob(ctx);
  }
}
