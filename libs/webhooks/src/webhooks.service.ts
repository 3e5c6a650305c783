import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { JobsService } from '@arbiter/jobs';
import { AuditLog } from '@arbiter/tenancy';
import { resolveWebhookHost } from './webhook-transport.js';
import { checkWebhookUrl, parseAllowedHosts, type AllowedHosts } from './webhook-url.js';
import type { WebhookDelivery, WebhookEventType, WebhookSubscription } from './webhook.types.js';
import { WebhooksErrorCode, WebhooksException } from './webhooks.exception.js';
import { WebhooksRepository, type AuditInTx } from './webhooks.repository.js';

/** A new signing secret: 32 random bytes, base64url, with a recognisable prefix (docs/webhooks.md "Secrets"). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Subscriptions, rotation and the delivery log of a tenant's webhooks (docs/webhooks.md). */
@Injectable()
export class WebhooksService {
  readonly allowedHosts: AllowedHosts;

  constructor(
    config: AppConfig,
    private readonly repository: WebhooksRepository,
    private readonly jobs: JobsService,
    private readonly audit: AuditLog,
  ) {
    this.allowedHosts = parseAllowedHosts(config.webhooks.allowedHosts);
  }

  /** The URL rules and the SSRF check of its resolved addresses; 400 naming why, before anything is written. */
  async assertUrlAccepted(raw: string): Promise<string> {
    const checked = checkWebhookUrl(raw, this.allowedHosts);
    if ('reason' in checked) throw new WebhooksException(WebhooksErrorCode.InvalidUrl, checked.reason);
    const resolved = await resolveWebhookHost(checked.url, this.allowedHosts);
    if ('reason' in resolved) throw new WebhooksException(WebhooksErrorCode.InvalidUrl, resolved.reason);
    return checked.url.toString();
  }

  async create(
    tenantId: TenantId,
    input: { url: string; events: WebhookEventType[]; description?: string },
  ): Promise<WebhookSubscription & { secret: string }> {
    const url = await this.assertUrlAccepted(input.url);
    const secret = newWebhookSecret();
    const created = await this.repository.createSubscription(
      tenantId,
      { url, events: input.events, description: input.description ?? null, secret },
      this.auditOf(tenantId, 'create'),
    );
    return { ...created, secret };
  }

  list(tenantId: TenantId): Promise<WebhookSubscription[]> {
    return this.repository.listSubscriptions(tenantId);
  }

  async get(tenantId: TenantId, id: string): Promise<WebhookSubscription> {
    const found = await this.repository.findSubscription(tenantId, id);
    if (!found) throw new WebhooksException(WebhooksErrorCode.SubscriptionNotFound, id);
    return found;
  }

  async update(
    tenantId: TenantId,
    id: string,
    patch: { url?: string; events?: WebhookEventType[]; description?: string; enabled?: boolean },
  ): Promise<WebhookSubscription> {
    await this.get(tenantId, id);
    const url = patch.url !== undefined ? await this.assertUrlAccepted(patch.url) : undefined;
    const updated = await this.repository.updateSubscription(
      tenantId,
      id,
      { ...patch, ...(url !== undefined ? { url } : {}) },
      this.auditOf(tenantId, 'update', { changed: Object.keys(patch) }),
    );
    if (!updated) throw new WebhooksException(WebhooksErrorCode.SubscriptionNotFound, id);
    return updated;
  }

  async remove(tenantId: TenantId, id: string): Promise<void> {
    if (!(await this.repository.deleteSubscription(tenantId, id, this.auditOf(tenantId, 'delete'))))
      throw new WebhooksException(WebhooksErrorCode.SubscriptionNotFound, id);
  }

  /** A new secret, shown once; the previous one also signs for `overlapSeconds` (default 24 h). */
  async rotate(tenantId: TenantId, id: string, overlapSeconds = 86_400): Promise<WebhookSubscription & { secret: string }> {
    const secret = newWebhookSecret();
    const rotated = await this.repository.rotateSecret(tenantId, id, secret, overlapSeconds, this.auditOf(tenantId, 'rotate', { overlapSeconds }));
    if (!rotated) throw new WebhooksException(WebhooksErrorCode.SubscriptionNotFound, id);
    return { ...rotated, secret };
  }

  /** The audit entry of a subscription change (docs/http-edge.md "Audit log"): its URL and events, never its secret. */
  private auditOf(tenantId: TenantId, action: string, extra: Record<string, unknown> = {}): AuditInTx {
    return (tx, subscription) =>
      this.audit.record(tx, tenantId, {
        action,
        resourceType: 'webhook',
        resourceId: subscription.id,
        label: subscription.url,
        summary: { events: subscription.events, enabled: subscription.enabled, ...extra },
      });
  }

  async deliveries(tenantId: TenantId, id: string, limit = 50): Promise<WebhookDelivery[]> {
    await this.get(tenantId, id);
    return this.repository.listDeliveries(tenantId, id, limit);
  }

  /** Sends the delivery's event again as a new delivery (its own attempts and retries), queued at once. */
  async redeliver(tenantId: TenantId, id: string, deliveryId: string): Promise<WebhookDelivery> {
    const subscription = await this.get(tenantId, id);
    const original = await this.repository.findDelivery(tenantId, id, deliveryId);
    if (!original) throw new WebhooksException(WebhooksErrorCode.DeliveryNotFound, deliveryId);
    if (!subscription.enabled) throw new WebhooksException(WebhooksErrorCode.SubscriptionDisabled, id);
    const created = await this.repository.transaction(async (tx) => {
      const delivery = await this.repository.insertRedelivery(tx, tenantId, original);
      await this.jobs.enqueueWithin(tx, tenantId, 'webhooks.deliver', { deliveryId: delivery.id }, { trigger: 'manual' });
      await this.audit.record(tx, tenantId, {
        action: 'redeliver',
        resourceType: 'webhook_delivery',
        resourceId: delivery.id,
        label: subscription.url,
        summary: { webhookId: id, redeliveryOf: original.id, eventId: original.eventId, eventType: original.eventType },
      });
      return delivery;
    });
    this.jobs.wakeUp();
    return created;
  }
}
