import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { JobHandler, JobsService, type JobContext, type JobRunner } from '@arbiter/jobs';
import { nextAttemptAt } from './webhook-backoff.js';
import { postWebhook, resolveWebhookHost } from './webhook-transport.js';
import { signatureHeaders } from './webhook-signing.js';
import { checkWebhookUrl } from './webhook-url.js';
import { webhookBody } from './webhook.types.js';
import { WebhooksRepository, type AttemptTarget } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * One attempt of one delivery (docs/webhooks.md "Retries"). A refused or failed attempt is recorded and the next
 * attempt queued as a new run due after the backoff, in one transaction; the run itself succeeds, so the job
 * queue's own retries only cover a worker that died mid-attempt (its lease expires and another worker attempts
 * again: at-least-once, receivers deduplicate by the event id).
 */
@Injectable()
@JobHandler('webhooks.deliver')
export class WebhookDeliverJob implements JobRunner<'webhooks.deliver'> {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly config: AppConfig,
    private readonly repository: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly jobs: JobsService,
  ) {}

  async run(ctx: JobContext<{ deliveryId: string }>): Promise<void> {
    const target = await this.repository.loadAttempt(ctx.tenantId, ctx.payload.deliveryId);
    if (!target || target.delivery.status !== 'pending') return;
    if (!target.subscription.enabled) {
      await this.repository.cancelDelivery(
        ctx.tenantId,
        target.delivery.id,
        `not sent: the webhook is disabled (${target.subscription.disabledReason ?? 'disabled'})`,
      );
      return;
    }
    const body = webhookBody(target.event);
    const checked = checkWebhookUrl(target.subscription.url, this.webhooks.allowedHosts);
    if ('reason' in checked) return this.failed(ctx.tenantId, target, { status: null, durationMs: null, error: checked.reason });
    const resolved = await resolveWebhookHost(checked.url, this.webhooks.allowedHosts);
    if ('reason' in resolved) return this.failed(ctx.tenantId, target, { status: null, durationMs: null, error: resolved.reason });
    const headers = {
      ...signatureHeaders({ current: target.subscription.secret, previous: target.subscription.previousSecret }, Math.floor(Date.now() / 1000), body),
      'x-arbiter-event': target.event.type,
      'x-arbiter-event-id': target.event.id,
      'x-arbiter-delivery': target.delivery.id,
    };
    try {
      const result = await postWebhook(checked.url, resolved.addresses, body, headers, this.config.webhooks.timeoutMs);
      if (result.status >= 200 && result.status < 300) {
        await this.repository.recordSuccess(ctx.tenantId, target, result);
        return;
      }
      const snippet = result.bodySnippet.trim();
      return this.failed(ctx.tenantId, target, {
        status: result.status,
        durationMs: result.durationMs,
        error: `HTTP ${result.status}${snippet ? `: ${snippet}` : ''}`,
      });
    } catch (error) {
      return this.failed(ctx.tenantId, target, { status: null, durationMs: null, error: (error as Error).message });
    }
  }

  private async failed(tenantId: TenantId, target: AttemptTarget, failure: { status: number | null; durationMs: number | null; error: string }): Promise<void> {
    const { retryBaseMs, disableAfterFailures } = this.config.webhooks;
    const next = nextAttemptAt(target.delivery.createdAt, target.delivery.attempts + 1, new Date(), retryBaseMs);
    const { disabled, retry } = await this.repository.transaction(async (tx) => {
      const recorded = await this.repository.recordFailure(tx, tenantId, target, { ...failure, nextAttemptAt: next }, disableAfterFailures);
      if (recorded.retry && next) await this.jobs.enqueueWithin(tx, tenantId, 'webhooks.deliver', { deliveryId: target.delivery.id }, { runAfter: next });
      return recorded;
    });
    this.logger.warn({
      msg: 'webhook attempt failed',
      deliveryId: target.delivery.id,
      attempt: target.delivery.attempts + 1,
      willRetry: retry,
      disabled,
      err: failure.error,
    });
  }
}
