import { Module } from '@nestjs/common';
import { CommonModule } from '@arbiter/common';
import { DatabaseModule } from '@arbiter/database';
import { JobsModule } from '@arbiter/jobs';
import { TenancyModule } from '@arbiter/tenancy';
import { WebhookDeliverJob } from './webhook-deliver.job.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';
import { WebhooksCleanupJob } from './webhooks-cleanup.job.js';

/**
 * Webhooks to the support desk (docs/webhooks.md): subscriptions, the outbox relay, the `webhooks.deliver` and
 * `webhooks.cleanup` jobs.
 * Events are written by database triggers in their cause's transaction (migration 0230), so no lib calls this one.
 */
@Module({
  imports: [CommonModule, DatabaseModule, JobsModule, TenancyModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDispatcher, WebhookDeliverJob, WebhooksCleanupJob],
  exports: [WebhooksService, WebhookDispatcher],
})
export class WebhooksModule {}
