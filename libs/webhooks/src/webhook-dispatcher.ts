import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { asTenantId, PeriodicPoll } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { JobsService } from '@arbiter/jobs';
import { WebhooksRepository } from './webhooks.repository.js';

/**
 * The outbox's relay (docs/webhooks.md "How events travel"): in processes that run jobs, every
 * WEBHOOK_DISPATCH_INTERVAL_MS it fans undispatched events out into deliveries and queues one `webhooks.deliver`
 * run per delivery, all in one transaction (a crash in between leaves the event undispatched, never half-done),
 * then wakes the job worker. Concurrent workers take different events (SKIP LOCKED).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly poll: PeriodicPoll;

  constructor(
    private readonly config: AppConfig,
    private readonly repository: WebhooksRepository,
    private readonly jobs: JobsService,
  ) {
    this.poll = new PeriodicPoll(async () => {
      try {
        await this.dispatchPending();
      } catch (error) {
        this.logger.warn({ msg: 'webhook dispatch failed (retrying)', err: (error as Error).message });
      }
    }, config.webhooks.dispatchIntervalMs);
  }

  onApplicationBootstrap(): void {
    if (this.config.jobs.enabled) this.poll.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poll.stop();
  }

  /** Dispatches until no undispatched event is left; returns how many deliveries were queued. */
  async dispatchPending(batch = 50): Promise<number> {
    let queued = 0;
    for (;;) {
      const { events, deliveries } = await this.repository.transaction(async (tx) => {
        const claimed = await this.repository.claimUndispatched(tx, batch);
        let made = 0;
        for (const event of claimed) {
          for (const delivery of await this.repository.fanOut(tx, event)) {
            await this.jobs.enqueueWithin(tx, asTenantId(delivery.tenantId), 'webhooks.deliver', { deliveryId: delivery.id });
            made++;
          }
        }
        return { events: claimed.length, deliveries: made };
      });
      queued += deliveries;
      if (deliveries > 0) this.jobs.wakeUp();
      if (events < batch) return queued;
    }
  }
}
