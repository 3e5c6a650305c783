import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { JobsModule } from '@arbiter/jobs';
import { SessionsModule } from '@arbiter/sessions';
import { DatabaseModule } from '@arbiter/database';
import { TenancyModule } from '@arbiter/tenancy';
import { CoverageBackfillJob } from './coverage-backfill.job.js';
import { CoverageBackfillRepository } from './coverage-backfill.repository.js';
import { COVERAGE_ENTITIES } from './entities/index.js';
import { CoverageController } from './coverage.controller.js';
import { CoverageHooks } from './coverage.hooks.js';
import { CoverageRepository } from './coverage.repository.js';
import { CoverageService } from './coverage.service.js';
import { builtInCoverageEvaluators, CoverageEvaluatorRegistry } from './evaluator/coverage-evaluator.registry.js';

@Module({
  imports: [TypeOrmModule.forFeature(COVERAGE_ENTITIES), JobsModule, SessionsModule, CommonModule, DatabaseModule, TenancyModule],
  controllers: [CoverageController],
  providers: [
    {
      provide: CoverageEvaluatorRegistry,
      inject: [AppConfig],
      // Fails the boot when COVERAGE_EVALUATOR_VERSION names no registered evaluator.
      useFactory: (config: AppConfig) => new CoverageEvaluatorRegistry(builtInCoverageEvaluators(), config.coverage.evaluatorVersion),
    },
    CoverageRepository,
    CoverageBackfillRepository,
    CoverageService,
    CoverageHooks,
    CoverageBackfillJob,
  ],
  exports: [CoverageService, CoverageEvaluatorRegistry],
})
export class CoverageModule {}
