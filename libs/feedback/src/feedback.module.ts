import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { IntentModule } from '@arbiter/intent';
import { RetrievalModule } from '@arbiter/retrieval';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { BadCaseLabelEntity } from './bad-case-label.entity.js';
import { CaseLearningService } from './case-learning.service.js';
import { CaseLibraryAnswers } from './case-library-answers.js';
import { CaseLibrarySettingsEntity, CaseLibraryVersionEntity } from './case-library-settings.entity.js';
import { CaseLibraryEntity } from './case-library.entity.js';
import { CaseLibraryRepository } from './case-library.repository.js';
import { FeedbackController, ReviewController } from './feedback.controller.js';
import { FeedbackRepository } from './feedback.repository.js';
import { FeedbackService } from './feedback.service.js';
import { SessionFeedbackEntity } from './session-feedback.entity.js';

@Module({
  imports: [
    SessionsModule,
    CommonModule,
    IntentModule,
    RetrievalModule,
    TenancyModule,
    DatabaseModule,
    // The entities stay for the boot-time schema check; the SQL is on the typed data layer (docs/data-layer.md).
    TypeOrmModule.forFeature([SessionFeedbackEntity, CaseLibraryEntity, CaseLibrarySettingsEntity, CaseLibraryVersionEntity, BadCaseLabelEntity]),
  ],
  controllers: [FeedbackController, ReviewController],
  providers: [FeedbackRepository, CaseLibraryRepository, CaseLibraryAnswers, FeedbackService, CaseLearningService],
  exports: [FeedbackService, CaseLibraryAnswers],
})
export class FeedbackModule {}
