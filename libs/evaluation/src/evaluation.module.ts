import { Module } from '@nestjs/common';
import { JobsModule } from '@arbiter/jobs';
import { LlmModule } from '@arbiter/llm';
import { EvaluationController } from './evaluation.controller.js';
import { RetryFallbacksJob, SelfEvaluateJob } from './evaluation.jobs.js';
import { EvaluationRepository } from './evaluation.repository.js';
import { EvaluationService } from './evaluation.service.js';

/** Needs the SessionsModule (global). */
@Module({
  imports: [LlmModule, JobsModule],
  controllers: [EvaluationController],
  providers: [EvaluationRepository, EvaluationService, SelfEvaluateJob, RetryFallbacksJob],
  exports: [EvaluationService],
})
export class EvaluationModule {}
