import { Module } from '@nestjs/common';
import { JobsCleanupJob } from './jobs-cleanup.job.js';
import { MonitoringController } from './monitoring.controller.js';
import { MonitoringRepository } from './monitoring.repository.js';
import { MonitoringService } from './monitoring.service.js';

/** Operator monitoring (conversation traces, stats) and the job-run cleanup job. */
@Module({
  controllers: [MonitoringController],
  providers: [MonitoringRepository, MonitoringService, JobsCleanupJob],
  exports: [MonitoringService],
})
export class MonitoringModule {}
