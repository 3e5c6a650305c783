import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { JOBS_ENTITIES } from './entities/index.js';
import { JobQueueRepository } from './job-queue.repository.js';
import { JobRunsRepository } from './job-runs.repository.js';
import { JobsCleanupJob } from './jobs-cleanup.job.js';
import { JobsController } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';

/** Durable jobs (`JobsService`), the job-run endpoints and the `jobs.cleanup` job. Import it where you enqueue or handle a job. */
@Module({
  imports: [TypeOrmModule.forFeature(JOBS_ENTITIES), DiscoveryModule, CommonModule, DatabaseModule],
  controllers: [JobsController],
  providers: [JobRunsRepository, JobQueueRepository, JobsService, JobsCleanupJob],
  exports: [JobsService],
})
export class JobsModule {}
