import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { JobsModule } from '@arbiter/jobs';
import { LlmModule } from '@arbiter/llm';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { ActionMemoryRepository } from './action-memory.repository.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { KnowledgeController } from './knowledge.controller.js';
import { FileImportProcessor } from './files/file-import.processor.js';
import { GroupWriteService } from './group-write.service.js';
import { KnowledgeFilesController } from './files/knowledge-files.controller.js';
import { KnowledgeFilesRepository } from './files/knowledge-files.repository.js';
import { KnowledgeFilesService } from './files/knowledge-files.service.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { KnowledgeChunksController } from './knowledge-chunks.controller.js';
import { KnowledgeChunksService } from './knowledge-chunks.service.js';
import { KnowledgeImportController } from './knowledge-import.controller.js';
import { KnowledgeImportRepository } from './knowledge-import.repository.js';
import { KnowledgeImportJob } from './knowledge-import.job.js';
import { KnowledgeImportService } from './knowledge-import.service.js';
import { KnowledgeHttpSetup } from './knowledge-http.js';
import { KnowledgeRepository } from './knowledge.repository.js';
import { HybridSearchService } from './hybrid-search.service.js';
import { LexicalRepository } from './lexical.repository.js';
import { GradingService } from './grading.service.js';
import { KnowledgeService } from './knowledge.service.js';
import { LookupService } from './lookup.service.js';
import { LexicalReindexJob } from './lexical-reindex.job.js';
import { MemoryExpiryJob } from './memory-expiry.job.js';
import { ReembedJob } from './reembed.job.js';
import { RetrievalJobs } from './retrieval-jobs.service.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';
import { CandidateSearchRepository } from './candidate-search.repository.js';

/** Knowledge base (pgvector), graded lookup with persisted action memory, retrieval confidence. */
@Module({
  imports: [TypeOrmModule.forFeature(RETRIEVAL_ENTITIES), LlmModule, JobsModule, SessionsModule, TenancyModule, CommonModule, DatabaseModule],
  controllers: [KnowledgeController, KnowledgeImportController, KnowledgeFilesController, KnowledgeChunksController],
  providers: [
    KnowledgeHttpSetup,
    KnowledgeRepository,
    VectorSearchRepository,
    CandidateSearchRepository,
    KnowledgeChunkRepository,
    KnowledgeChunksService,
    LexicalRepository,
    HybridSearchService,
    GradingService,
    ActionMemoryRepository,
    RetrievalSettingsRepository,
    RetrievalSettingsService,
    KnowledgeService,
    LookupService,
    VectorIndexService,
    RetrievalJobs,
    KnowledgeImportRepository,
    KnowledgeImportService,
    KnowledgeImportJob,
    KnowledgeFilesRepository,
    KnowledgeFilesService,
    FileImportProcessor,
    GroupWriteService,
    MemoryExpiryJob,
    LexicalReindexJob,
    ReembedJob,
  ],
  exports: [KnowledgeService, LookupService, RetrievalSettingsService],
})
export class RetrievalModule {}
