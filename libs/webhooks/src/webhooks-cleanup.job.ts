import { Injectable } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { JobHandler, type JobContext, type JobRunner } from '@arbiter/jobs';
import { WebhooksRepository } from './webhooks.repository.js';

export const WEBHOOKS_CLEANUP_BATCH = 1000;

/**
 * `webhooks.cleanup` (docs/webhooks.md "Retention"): deletes the tenant's webhook events older than
 * WEBHOOK_RETENTION_DAYS with their deliveries, in batches (each committed and reported). An event with a pending
 * delivery (a redelivery, say) stays until it is done. Idempotent.
 */
@Injectable()
@JobHandler('webhooks.cleanup')
export class WebhooksCleanupJob implements JobRunner<'webhooks.cleanup'> {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly config: AppConfig,
  ) {}

  async run(ctx: JobContext): Promise<void> {
    const retentionDays = this.config.webhooks.retentionDays;
    for (;;) {
      const deleted = await ctx.step(() => this.repository.deleteExpired(ctx.tenantId, retentionDays, WEBHOOKS_CLEANUP_BATCH));
      await ctx.progress({ processed: deleted, details: { retentionDays } });
      if (deleted < WEBHOOKS_CLEANUP_BATCH) return;
    }
  }
}
