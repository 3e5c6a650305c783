import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { DecisionLogRepository } from './decision-log.repository.js';

export const DECISION_LOG_CLEANUP_JOB = 'learning.decision-log-cleanup' satisfies JobName;
export const DECISION_LOG_CLEANUP_BATCH = 5000;

/**
 * `learning.decision-log-cleanup`: deletes the tenant's logged decisions older than its retention
 * (`PUT /admin/intent/decision-settings`, default 30 days), oldest first, in batches (each committed and
 * reported). Idempotent: a re-run deletes what is left. Review labels keep their copy of the message.
 */
@Injectable()
@JobHandler(DECISION_LOG_CLEANUP_JOB)
export class DecisionLogCleanupJob implements JobRunner<typeof DECISION_LOG_CLEANUP_JOB> {
  constructor(private readonly decisions: DecisionLogRepository) {}

  async run(ctx: JobContext): Promise<void> {
    for (;;) {
      const deleted = await ctx.step(() => this.decisions.purgeExpired(ctx.tenantId, DECISION_LOG_CLEANUP_BATCH));
      await ctx.progress({ processed: deleted });
      if (deleted < DECISION_LOG_CLEANUP_BATCH) return;
    }
  }
}
