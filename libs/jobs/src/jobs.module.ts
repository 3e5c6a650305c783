import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobRunEntity } from './job-run.entity.js';
import { JobQueueRepository } from './job-queue.repository.js';
import { JobRunsRepository } from './job-runs.repository.js';
import { JobsController } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([JobRunEntity])],
  controllers: [JobsController],
  providers: [JobRunsRepository, JobQueueRepository, JobsService],
  exports: [JobsService],
})
export class JobsModule {}
