import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { SessionsModule } from '@arbiter/sessions';
import { CaseLibraryEntity } from './case-library.entity.js';
import { FeedbackController, ReviewController } from './feedback.controller.js';
import { FeedbackRepository } from './feedback.repository.js';
import { FeedbackService } from './feedback.service.js';
import { SessionFeedbackEntity } from './session-feedback.entity.js';

@Module({
  imports: [SessionsModule, CommonModule, TypeOrmModule.forFeature([SessionFeedbackEntity, CaseLibraryEntity])],
  controllers: [FeedbackController, ReviewController],
  providers: [FeedbackRepository, FeedbackService],
  exports: [FeedbackService],
})
export class FeedbackModule {}
