import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext, type JobRunner } from '@arbiter/jobs';
import { EvaluationService, SELF_EVALUATE_JOB } from './evaluation.service.js';

/** `evaluation.self-evaluate`: the LLM self-evaluation of one finished session. */
@Injectable()
@JobHandler(SELF_EVALUATE_JOB)
export class SelfEvaluateJob implements JobRunner<typeof SELF_EVALUATE_JOB> {
  constructor(private readonly evaluation: EvaluationService) {}

  run(ctx: JobContext<{ sessionId: string }>): Promise<void> {
    return this.evaluation.runSelfEvaluationJob(ctx);
  }
}
