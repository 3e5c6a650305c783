import { Module } from '@nestjs/common';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { JobsModule } from '@arbiter/jobs';
import { LlmModule } from '@arbiter/llm';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { EvaluationController } from './evaluation.controller.js';
import { RetryFallbacksJob } from './retry-fallbacks.job.js';
import { SelfEvaluateJob } from './self-evaluate.job.js';
import { EvaluationRepository } from './evaluation.repository.js';
import { EvaluationService } from './evaluation.service.js';

@Module({
  imports: [LlmModule, JobsModule, SessionsModule, CommonModule, DatabaseModule, TenancyModule],
  controllers: [EvaluationController],
  providers: [EvaluationRepository, EvaluationService, SelfEvaluateJob, RetryFallbacksJob],
  exports: [EvaluationService],
})
export class EvaluationModule {}
