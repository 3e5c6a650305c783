import { Module } from '@nestjs/common';
import { EvaluationController } from './evaluation.controller.js';
import { EvaluationRepository } from './evaluation.repository.js';
import { EvaluationService } from './evaluation.service.js';

/** Needs the global LlmModule, SessionsModule and JobsModule. */
@Module({
  controllers: [EvaluationController],
  providers: [EvaluationRepository, EvaluationService],
  exports: [EvaluationService],
})
export class EvaluationModule {}
