import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { JobsService, type JobContext } from '@arbiter/jobs';
import { MonitoringRepository } from './monitoring.repository.js';

export const JOBS_CLEANUP_JOB = 'jobs.cleanup';
/** Daily at 03:17 UTC (override with JOBS_SCHEDULES). */
export const JOBS_CLEANUP_CRON = '17 3 * * *';
export const JOBS_CLEANUP_BATCH = 1000;

/**
 * `jobs.cleanup`: deletes the tenant's finished job runs older than JOBS_RUN_RETENTION_DAYS, in
 * batches (each committed and reported). Idempotent: a re-run deletes what is left; queued and
 * running runs are never touched.
 */
@Injectable()
export class JobsCleanupJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobsService,
    private readonly repository: MonitoringRepository,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.define<Record<string, unknown>>({ name: JOBS_CLEANUP_JOB, cron: JOBS_CLEANUP_CRON, maxAttempts: 3, handler: (ctx) => this.run(ctx) });
  }

  async run(ctx: JobContext): Promise<void> {
    const retentionDays = this.config.jobs.runRetentionDays;
    for (;;) {
      const deleted = await this.repository.deleteOldJobRuns(ctx.tenantId, retentionDays, ctx.runId, JOBS_CLEANUP_BATCH);
      await ctx.progress({ processed: deleted, details: { retentionDays } });
      if (deleted < JOBS_CLEANUP_BATCH) return;
    }
  }
}
