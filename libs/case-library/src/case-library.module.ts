import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { TenancyModule } from '@arbiter/tenancy';
import { CaseLibraryAnswers } from './case-library-answers.js';
import { CaseLibraryController } from './case-library.controller.js';
import { CaseLibraryRepository } from './case-library.repository.js';
import { CaseLibraryService } from './case-library.service.js';
import { CaseLibrarySettingsEntity, CaseLibraryVersionEntity } from './entities/case-library-settings.entity.js';
import { CaseLibraryEntity } from './entities/case-library.entity.js';

/**
 * The case library (docs/learning.md "Feedback that teaches"): import it where you use `CaseLibraryAnswers` (the chat's
 * verified-case answers), `CaseLibraryService` (a feedback post's case change) or `CaseLibraryRepository` (the
 * fragments a feedback post embeds in its one statement).
 */
@Module({
  imports: [
    CommonModule,
    TenancyModule,
    DatabaseModule,
    // The entities stay for the boot-time schema check; the SQL is on the typed data layer (docs/data-layer.md).
    TypeOrmModule.forFeature([CaseLibraryEntity, CaseLibrarySettingsEntity, CaseLibraryVersionEntity]),
  ],
  controllers: [CaseLibraryController],
  providers: [CaseLibraryRepository, CaseLibraryAnswers, CaseLibraryService],
  exports: [CaseLibraryRepository, CaseLibraryAnswers, CaseLibraryService],
})
export class CaseLibraryModule {}
