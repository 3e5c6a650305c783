import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import {
  Database,
  sql,
  type Db,
  type Selectable,
  type WebhookDelivery as DeliveryTable,
  type WebhookSubscription as SubscriptionTable,
} from '@arbiter/database';
import type { DeliveryStatus, SigningSubscription, WebhookDelivery, WebhookEventRow, WebhookEventType, WebhookSubscription } from './webhook.types.js';

const SUBSCRIPTION_COLUMNS = [
  'id',
  'url',
  'events',
  'description',
  'enabled',
  'disabled_reason',
  'consecutive_failures',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
] as const;

type SubscriptionRow = Pick<Selectable<SubscriptionTable>, (typeof SUBSCRIPTION_COLUMNS)[number]>;

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    consecutiveFailures: row.consecutive_failures,
    previousSecretExpiresAt: row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toDelivery(row: Selectable<DeliveryTable>): WebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type as WebhookEventType,
    redeliveryOf: row.redelivery_of,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    responseStatus: row.response_status,
    responseMs: row.response_ms,
    error: row.error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

export interface AttemptTarget {
  delivery: WebhookDelivery;
  subscription: SigningSubscription;
  event: WebhookEventRow;
}

/**
 * The webhooks lib's tables (docs/webhooks.md): subscriptions, the outbox (`webhook_event`, written by the
 * migration 0230 triggers in their cause's transaction) and deliveries. On the typed data layer (docs/data-layer.md).
 */
/** Writes the audit entry of a change inside the change's transaction (docs/http-edge.md "Audit log"). */
export type AuditInTx = (tx: Db, subscription: WebhookSubscription) => Promise<void>;

@Injectable()
export class WebhooksRepository {
  constructor(private readonly database: Database) {}

  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  async createSubscription(
    tenantId: TenantId,
    input: { url: string; events: WebhookEventType[]; description: string | null; secret: string },
    audit?: AuditInTx,
  ): Promise<WebhookSubscription> {
    return this.database.transaction(async (tx) => {
      const row = await tx
        .insertInto('webhook_subscription')
        .values({ tenant_id: tenantId, url: input.url, events: input.events, description: input.description, secret: input.secret })
        .returning(SUBSCRIPTION_COLUMNS)
        .executeTakeFirstOrThrow();
      const subscription = toSubscription(row);
      await audit?.(tx, subscription);
      return subscription;
    });
  }

  async listSubscriptions(tenantId: TenantId): Promise<WebhookSubscription[]> {
    const rows = await this.database.db
      .selectFrom('webhook_subscription')
      .select(SUBSCRIPTION_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toSubscription);
  }

  async findSubscription(tenantId: TenantId, id: string): Promise<WebhookSubscription | null> {
    const row = await this.database.db
      .selectFrom('webhook_subscription')
      .select(SUBSCRIPTION_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSubscription(row) : null;
  }

  /** Applies the given fields; enabling again clears the failure count and the reason it was disabled. Null when not this tenant's. */
  async updateSubscription(
    tenantId: TenantId,
    id: string,
    patch: { url?: string; events?: WebhookEventType[]; description?: string | null; enabled?: boolean },
    audit?: AuditInTx,
  ): Promise<WebhookSubscription | null> {
    return this.database.transaction(async (tx) => {
      const row = await tx
        .updateTable('webhook_subscription')
        .set({
          updated_at: sql<Date>`now()`,
          ...(patch.url !== undefined ? { url: patch.url } : {}),
          ...(patch.events !== undefined ? { events: patch.events } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.enabled === true ? { enabled: true, disabled_reason: null, consecutive_failures: 0 } : {}),
          ...(patch.enabled === false ? { enabled: false, disabled_reason: 'disabled by an operator' } : {}),
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning(SUBSCRIPTION_COLUMNS)
        .executeTakeFirst();
      if (!row) return null;
      const subscription = toSubscription(row);
      await audit?.(tx, subscription);
      return subscription;
    });
  }

  async deleteSubscription(tenantId: TenantId, id: string, audit?: AuditInTx): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const row = await tx
        .deleteFrom('webhook_subscription')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning(SUBSCRIPTION_COLUMNS)
        .executeTakeFirst();
      if (!row) return false;
      await audit?.(tx, toSubscription(row));
      return true;
    });
  }

  /** The new secret signs from now on; the old one also signs for `overlapSeconds` (0: at once no more). */
  async rotateSecret(tenantId: TenantId, id: string, secret: string, overlapSeconds: number, audit?: AuditInTx): Promise<WebhookSubscription | null> {
    return this.database.transaction(async (tx) => {
      const row = await tx
        .updateTable('webhook_subscription')
        .set({
          previous_secret: overlapSeconds > 0 ? sql<string>`secret` : null,
          previous_secret_expires_at: overlapSeconds > 0 ? sql<Date>`now() + make_interval(secs => ${overlapSeconds})` : null,
          secret,
          updated_at: sql<Date>`now()`,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning(SUBSCRIPTION_COLUMNS)
        .executeTakeFirst();
      if (!row) return null;
      const subscription = toSubscription(row);
      await audit?.(tx, subscription);
      return subscription;
    });
  }

  /** The subscription's deliveries, newest first (the delivery log). */
  async listDeliveries(tenantId: TenantId, subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.database.db
      .selectFrom('webhook_delivery')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('subscription_id', '=', subscriptionId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toDelivery);
  }

  async findDelivery(tenantId: TenantId, subscriptionId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const row = await this.database.db
      .selectFrom('webhook_delivery')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('subscription_id', '=', subscriptionId)
      .where('id', '=', deliveryId)
      .executeTakeFirst();
    return row ? toDelivery(row) : null;
  }

  /** A new pending delivery of the same event to the same subscription (the log keeps the original). */
  async insertRedelivery(db: Db, tenantId: TenantId, original: WebhookDelivery): Promise<WebhookDelivery> {
    const row = await db
      .insertInto('webhook_delivery')
      .values({
        tenant_id: tenantId,
        subscription_id: original.subscriptionId,
        event_id: original.eventId,
        event_type: original.eventType,
        redelivery_of: original.id,
        next_attempt_at: sql<Date>`now()`,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toDelivery(row);
  }

  /**
   * The dispatcher's claim (system scope, like the job queue's: it serves every tenant): the oldest undispatched
   * events, locked so that concurrent dispatchers take different ones. On a Citus cluster, where `SELECT … FOR UPDATE`
   * runs on one shard only, the oldest are read without a lock and each is then locked by its key, skipped when another
   * dispatcher holds it or dispatched it meanwhile (docs/SCALING.md "Jobs on a distributed cluster").
   */
  async claimUndispatched(tx: Db, limit: number): Promise<WebhookEventRow[]> {
    const undispatched = (db: Db) =>
      db.selectFrom('webhook_event').select(['tenant_id', 'id', 'type', 'payload', 'created_at']).where('dispatched_at', 'is', null);
    let rows: { tenant_id: string; id: string; type: string; payload: unknown; created_at: Date }[];
    if (await this.database.isDistributed(tx)) {
      const candidates = await undispatched(tx).orderBy('created_at').limit(limit).execute();
      rows = [];
      for (const candidate of candidates) {
        const locked = await undispatched(tx)
          .where('tenant_id', '=', candidate.tenant_id)
          .where('id', '=', candidate.id)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (locked) rows.push(locked);
      }
    } else {
      rows = await undispatched(tx).orderBy('created_at').limit(limit).forUpdate().skipLocked().execute();
    }
    return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, type: r.type as WebhookEventType, payload: r.payload, createdAt: r.created_at }));
  }

  /** One pending delivery per enabled subscription to the event's type that existed when the event happened. */
  async fanOut(tx: Db, event: WebhookEventRow): Promise<{ tenantId: string; id: string }[]> {
    const rows = await tx
      .insertInto('webhook_delivery')
      .columns(['tenant_id', 'subscription_id', 'event_id', 'event_type', 'next_attempt_at'])
      .expression((eb) =>
        eb
          .selectFrom('webhook_subscription as s')
          .select([
            's.tenant_id',
            's.id',
            sql<string>`${event.id}::uuid`.as('event_id'),
            sql<string>`${event.type}::varchar`.as('event_type'),
            sql<Date>`now()`.as('next_attempt_at'),
          ])
          .where('s.tenant_id', '=', event.tenantId)
          .where('s.enabled', '=', true)
          .where(sql<boolean>`${event.type}::varchar = ANY (s.events)`)
          .where('s.created_at', '<=', event.createdAt),
      )
      .returning(['tenant_id', 'id'])
      .execute();
    await tx
      .updateTable('webhook_event')
      .set({ dispatched_at: sql<Date>`now()` })
      .where('tenant_id', '=', event.tenantId)
      .where('id', '=', event.id)
      .execute();
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
  }

  /** What an attempt needs: the delivery, its subscription (with secrets) and its event; null when gone. */
  async loadAttempt(tenantId: TenantId, deliveryId: string): Promise<AttemptTarget | null> {
    const row = await this.database.db
      .selectFrom('webhook_delivery as d')
      .innerJoin('webhook_subscription as s', (join) => join.onRef('s.tenant_id', '=', 'd.tenant_id').onRef('s.id', '=', 'd.subscription_id'))
      .innerJoin('webhook_event as e', (join) => join.onRef('e.tenant_id', '=', 'd.tenant_id').onRef('e.id', '=', 'd.event_id'))
      .selectAll('d')
      .select([
        's.url',
        's.events',
        's.description',
        's.enabled',
        's.disabled_reason',
        's.consecutive_failures',
        's.previous_secret_expires_at',
        's.created_at as s_created_at',
        's.updated_at as s_updated_at',
        's.secret',
        sql<string | null>`CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END`.as('previous_secret'),
        'e.type as e_type',
        'e.payload as e_payload',
        'e.created_at as e_created_at',
      ])
      .where('d.tenant_id', '=', tenantId)
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (!row) return null;
    const subscription: SigningSubscription = {
      ...toSubscription({ ...row, id: row.subscription_id, created_at: row.s_created_at, updated_at: row.s_updated_at }),
      secret: row.secret,
      previousSecret: row.previous_secret,
    };
    return {
      delivery: toDelivery(row),
      subscription,
      event: { id: row.event_id, tenantId, type: row.e_type as WebhookEventType, payload: row.e_payload, createdAt: row.e_created_at },
    };
  }

  /**
   * A 2xx answer: the delivery succeeded and the subscription's failure streak ends. The subscription row is
   * locked before the delivery row, the order a subscription's deletion takes them (it cascades to its
   * deliveries): the other order deadlocked a concurrent `DELETE /admin/webhooks/:id` (docs/webhooks.md
   * "Lock order"). A streak already at 0 is not rewritten, so the usual success takes no subscription lock.
   */
  async recordSuccess(tenantId: TenantId, target: AttemptTarget, result: { status: number; durationMs: number }): Promise<void> {
    await this.database.transaction(async (tx) => {
      await tx
        .updateTable('webhook_subscription')
        .set({ consecutive_failures: 0 })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', target.subscription.id)
        .where('consecutive_failures', '<>', 0)
        .execute();
      await tx
        .updateTable('webhook_delivery')
        .set({
          status: 'succeeded',
          attempts: sql<number>`attempts + 1`,
          last_attempt_at: sql<Date>`now()`,
          finished_at: sql<Date>`now()`,
          next_attempt_at: null,
          response_status: result.status,
          response_ms: result.durationMs,
          error: null,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', target.delivery.id)
        .where('status', '=', 'pending')
        .execute();
    });
  }

  /**
   * A failed attempt, in the caller's transaction: the subscription's streak grows and it is disabled once it
   * reaches `disableAfter`; the delivery stays pending until `nextAttemptAt`, or fails for good when there is none
   * or this attempt disabled the subscription. Returns whether the delivery will be attempted again.
   */
  async recordFailure(
    tx: Db,
    tenantId: TenantId,
    target: AttemptTarget,
    failure: { status: number | null; durationMs: number | null; error: string; nextAttemptAt: Date | null },
    disableAfter: number,
  ): Promise<{ disabled: boolean; retry: boolean }> {
    const reason = `disabled after ${disableAfter} failed attempts in a row`;
    const row = await tx
      .updateTable('webhook_subscription')
      .set({
        consecutive_failures: sql<number>`consecutive_failures + 1`,
        enabled: sql<boolean>`CASE WHEN consecutive_failures + 1 >= ${disableAfter} THEN false ELSE enabled END`,
        disabled_reason: sql<string | null>`CASE WHEN enabled AND consecutive_failures + 1 >= ${disableAfter} THEN ${reason}::varchar ELSE disabled_reason END`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', target.subscription.id)
      .returning(['enabled'])
      .executeTakeFirst();
    const disabled = row !== undefined && !row.enabled && target.subscription.enabled;
    const next = disabled ? null : failure.nextAttemptAt;
    await tx
      .updateTable('webhook_delivery')
      .set({
        status: next ? 'pending' : 'failed',
        attempts: sql<number>`attempts + 1`,
        last_attempt_at: sql<Date>`now()`,
        finished_at: next ? null : sql<Date>`now()`,
        next_attempt_at: next,
        response_status: failure.status,
        response_ms: failure.durationMs,
        error: (disabled ? `${failure.error} (webhook ${reason})` : failure.error).slice(0, 1000),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', target.delivery.id)
      .where('status', '=', 'pending')
      .execute();
    return { disabled, retry: next !== null };
  }

  /**
   * Deletes up to `limit` of the tenant's dispatched events older than `retentionDays` with no pending delivery, and
   * with them their deliveries (`ON DELETE CASCADE`); returns how many events.
   */
  async deleteExpired(tenantId: TenantId, retentionDays: number, limit: number): Promise<number> {
    const result = await sql<{ n: number }>`
      WITH victims AS (
        SELECT e.tenant_id, e.id FROM webhook_event e
         WHERE e.tenant_id = ${tenantId} AND e.created_at < now() - make_interval(days => ${retentionDays}::int)
           AND e.dispatched_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.tenant_id = e.tenant_id AND d.event_id = e.id AND d.status = 'pending')
         ORDER BY e.created_at, e.id
         LIMIT ${limit}),
      gone AS (DELETE FROM webhook_event e USING victims v WHERE e.tenant_id = v.tenant_id AND e.id = v.id RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.execute(this.database.db);
    return result.rows[0]?.n ?? 0;
  }

  /** Closes a pending delivery without an attempt (its subscription was disabled). */
  async cancelDelivery(tenantId: TenantId, deliveryId: string, reason: string): Promise<void> {
    await this.database.db
      .updateTable('webhook_delivery')
      .set({ status: 'failed', finished_at: sql<Date>`now()`, next_attempt_at: null, error: reason })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  }
}
