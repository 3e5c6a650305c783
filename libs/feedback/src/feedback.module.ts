import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CaseLibraryModule } from '@arbiter/case-library';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { IntentModule } from '@arbiter/intent';
import { RetrievalModule } from '@arbiter/retrieval';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { ReviewController } from './bad-case.controller.js';
import { BadCaseRepository } from './bad-case.repository.js';
import { BadCaseService } from './bad-case.service.js';
import { BadCaseLabelEntity } from './entities/bad-case-label.entity.js';
import { SessionFeedbackEntity } from './entities/session-feedback.entity.js';
import { FeedbackController } from './feedback.controller.js';
import { FeedbackRepository } from './feedback.repository.js';
import { FeedbackService } from './feedback.service.js';

/**
 * Session feedback (`POST /api/feedback`) and bad-case review (`/admin/bad-cases`). A post's case change is the case
 * library's (`CaseLibraryModule`: its repository's fragments, its service's count and index invalidation).
 */
@Module({
  imports: [
    CaseLibraryModule,
    SessionsModule,
    CommonModule,
    IntentModule,
    RetrievalModule,
    TenancyModule,
    DatabaseModule,
    // The entities stay for the boot-time schema check; the SQL is on the typed data layer (docs/data-layer.md).
    TypeOrmModule.forFeature([SessionFeedbackEntity, BadCaseLabelEntity]),
  ],
  controllers: [FeedbackController, ReviewController],
  providers: [FeedbackRepository, BadCaseRepository, FeedbackService, BadCaseService],
  exports: [FeedbackService],
})
export class FeedbackModule {}
