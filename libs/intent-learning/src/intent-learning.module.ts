import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { IntentModule } from '@arbiter/intent';
import { JobsModule } from '@arbiter/jobs';
import { TenancyModule } from '@arbiter/tenancy';
import { DecisionLogCleanupJob } from './decision-log-cleanup.job.js';
import { DecisionLogRepository } from './decision-log.repository.js';
import { DecisionLogService } from './decision-log.service.js';
import { DecisionLogWriter } from './decision-log.writer.js';
import { DecisionsController } from './decisions.controller.js';
import { INTENT_LEARNING_ENTITIES } from './entities/index.js';
import { IntentFitController } from './intent-fit.controller.js';
import { IntentFitJob } from './intent-fit.job.js';
import { IntentFitRepository } from './intent-fit.repository.js';
import { IntentFitService } from './intent-fit.service.js';
import { IntentReplayController } from './intent-replay.controller.js';
import { IntentReplayJob } from './intent-replay.job.js';
import { IntentReplayRepository } from './intent-replay.repository.js';
import { IntentReplayService } from './intent-replay.service.js';
import { LabelledSetRepository } from './labelled-set.repository.js';
import { LabelledSetsController } from './labelled-sets.controller.js';
import { LabelledSetsService } from './labelled-sets.service.js';
import { LabelledSnapshotService } from './labelled-snapshot.service.js';
import { LabelledSourcesRepository } from './labelled-sources.repository.js';
import { LearningHttpSetup } from './intent-learning-http.js';

/**
 * Learning from routing (issue 14; docs/decision-log.md): the decision log (every routing decision, written in
 * batches off the request path through the intent lib's `IntentDecisionHooks`) and labelled data (uploaded
 * sets and operators' labels on logged decisions).
 */
@Module({
  imports: [TypeOrmModule.forFeature(INTENT_LEARNING_ENTITIES), IntentModule, JobsModule, TenancyModule, CommonModule, DatabaseModule],
  controllers: [DecisionsController, LabelledSetsController, IntentFitController, IntentReplayController],
  providers: [
    LearningHttpSetup,
    DecisionLogRepository,
    LabelledSetRepository,
    DecisionLogWriter,
    DecisionLogService,
    LabelledSetsService,
    DecisionLogCleanupJob,
    IntentFitRepository,
    IntentFitService,
    IntentFitJob,
    IntentReplayRepository,
    IntentReplayService,
    IntentReplayJob,
    LabelledSourcesRepository,
    LabelledSnapshotService,
  ],
  exports: [DecisionLogWriter, DecisionLogService, LabelledSetsService],
})
export class IntentLearningModule {}
