import { Injectable } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { JobHandler, type JobRunner } from './job-handler.js';
import { JobRunsRepository } from './job-runs.repository.js';
import type { JobContext } from './job.types.js';

export const JOBS_CLEANUP_BATCH = 1000;

/**
 * `jobs.cleanup`: deletes the tenant's finished job runs older than JOBS_RUN_RETENTION_DAYS, in
 * batches (each committed and reported). Idempotent: a re-run deletes what is left; queued and
 * running runs are never touched.
 */
@Injectable()
@JobHandler('jobs.cleanup')
export class JobsCleanupJob implements JobRunner<'jobs.cleanup'> {
  constructor(
    private readonly runs: JobRunsRepository,
    private readonly config: AppConfig,
  ) {}

  async run(ctx: JobContext): Promise<void> {
    const retentionDays = this.config.jobs.runRetentionDays;
    for (;;) {
      const deleted = await ctx.step(() => this.runs.deleteFinished(ctx.tenantId, retentionDays, ctx.runId, JOBS_CLEANUP_BATCH));
      await ctx.progress({ processed: deleted, details: { retentionDays } });
      if (deleted < JOBS_CLEANUP_BATCH) return;
    }
  }
}
