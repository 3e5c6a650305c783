import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TenantId } from '@arbiter/common';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { WebhooksRepository, type AttemptTarget } from './webhooks.repository.js';

/**
 * docs/webhooks.md "Lock order": a delivery attempt's result and a subscription's deletion lock the
 * subscription row before its deliveries. CI saw `DELETE /admin/webhooks/:id` answer 500 on PostgreSQL when a
 * success locked the delivery first and then waited for the subscription the deletion held (a deadlock).
 */
describe(`webhook delivery results and subscription deletion (${process.env.TEST_DB ?? 'pglite'})`, () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let repository: WebhooksRepository;
  let tenant: TenantId;

  beforeAll(async () => {
    medium = await newMediumTest();
    db = medium.db;
    repository = await medium.service(WebhooksRepository);
    [tenant] = (await medium.tenants('lock-order')) as [TenantId];
  }, 240_000);
  afterAll(async () => {
    await medium?.close();
  });

  /** A subscription with a failure streak and one pending delivery, loaded as the deliver job loads it. */
  async function pendingAttempt(consecutiveFailures: number): Promise<AttemptTarget> {
    const subscriptionId = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO webhook_subscription (tenant_id, url, events, secret, consecutive_failures)
         VALUES ($1, 'https://desk.example.com/h', ARRAY['job.failed'], 'whsec_lock', $2) RETURNING id`,
        [tenant, consecutiveFailures],
      )
    ).rows[0]!.id;
    const eventId = (
      await db.pool.query<{ id: string }>(`INSERT INTO webhook_event (tenant_id, type, payload) VALUES ($1, 'job.failed', '{}') RETURNING id`, [tenant])
    ).rows[0]!.id;
    const deliveryId = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO webhook_delivery (tenant_id, subscription_id, event_id, event_type) VALUES ($1, $2, $3, 'job.failed') RETURNING id`,
        [tenant, subscriptionId, eventId],
      )
    ).rows[0]!.id;
    const target = await repository.loadAttempt(tenant, deliveryId);
    expect(target).not.toBeNull();
    return target!;
  }

  const row = async (sql: string, id: string) => (await db.pool.query<Record<string, unknown>>(sql, [tenant, id])).rows[0];

  it('a success ends the streak and marks the delivery succeeded; deleting the subscription afterwards removes its deliveries', async () => {
    const target = await pendingAttempt(3);
    await repository.recordSuccess(tenant, target, { status: 200, durationMs: 12 });
    expect(await row(`SELECT consecutive_failures FROM webhook_subscription WHERE tenant_id = $1 AND id = $2`, target.subscription.id)).toEqual({
      consecutive_failures: 0,
    });
    expect(await row(`SELECT status, attempts, response_status FROM webhook_delivery WHERE tenant_id = $1 AND id = $2`, target.delivery.id)).toEqual({
      status: 'succeeded',
      attempts: 1,
      response_status: 200,
    });
    expect(await repository.deleteSubscription(tenant, target.subscription.id)).toBe(true);
    expect(await row(`SELECT count(*)::int AS n FROM webhook_delivery WHERE tenant_id = $1 AND subscription_id = $2`, target.subscription.id)).toEqual({
      n: 0,
    });
  });

  // PGlite serves one transaction at a time, so two transactions never interleave there: the lock order is a
  // PostgreSQL property and these cases are defined on PostgreSQL only (CI runs this file on both databases).
  const onPostgres = testDbKind() !== 'pglite';

  (onPostgres ? it : it.skip)('PostgreSQL: a success waiting for a subscription locked by its deletion holds no lock on the delivery', async () => {
    const target = await pendingAttempt(2);
    const deletion = await db.pool.connect();
    try {
      await deletion.query('BEGIN');
      // The deletion's first lock: the subscription row (DELETE locks it before cascading to the deliveries).
      await deletion.query(`SELECT 1 FROM webhook_subscription WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenant, target.subscription.id]);
      const success = repository.recordSuccess(tenant, target, { status: 204, durationMs: 5 });
      await waitUntilBlocked(db, deletion);
      // With the delivery locked by the waiting success, this would fail (55P03) and the cascade would deadlock.
      await expect(
        deletion.query(`SELECT 1 FROM webhook_delivery WHERE tenant_id = $1 AND id = $2 FOR UPDATE NOWAIT`, [tenant, target.delivery.id]),
      ).resolves.toMatchObject({ rowCount: 1 });
      await deletion.query(`DELETE FROM webhook_subscription WHERE tenant_id = $1 AND id = $2`, [tenant, target.subscription.id]);
      await deletion.query('COMMIT');
      await success;
    } finally {
      deletion.release();
    }
    expect(await row(`SELECT count(*)::int AS n FROM webhook_delivery WHERE tenant_id = $1 AND id = $2`, target.delivery.id)).toEqual({ n: 0 });
  });

  (onPostgres ? it : it.skip)('PostgreSQL: a success of a subscription without a failure streak does not wait for its lock', async () => {
    const target = await pendingAttempt(0);
    const deletion = await db.pool.connect();
    try {
      await deletion.query('BEGIN');
      await deletion.query(`SELECT 1 FROM webhook_subscription WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenant, target.subscription.id]);
      await repository.recordSuccess(tenant, target, { status: 200, durationMs: 3 });
      await deletion.query('ROLLBACK');
    } finally {
      deletion.release();
    }
    expect(await row(`SELECT status FROM webhook_delivery WHERE tenant_id = $1 AND id = $2`, target.delivery.id)).toEqual({ status: 'succeeded' });
  });
});

/**
 * Resolves once another backend waits for a lock held by `holder` (polls pg_locks' blocking graph). On a Citus
 * cluster the rows and their locks live on a worker, so the coordinator's graph is Citus's own (`citus_lock_waits`,
 * by global process id; docs/SCALING.md "Running on Citus").
 */
async function waitUntilBlocked(db: TestDatabase, holder: { query: TestDatabase['pool']['query'] }): Promise<void> {
  const citus = db.kind === 'citus';
  const pid = (await holder.query<{ pid: number }>(citus ? 'SELECT citus_backend_gpid() AS pid' : 'SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const blockedBy = citus
    ? `SELECT count(*)::int AS n FROM citus_lock_waits WHERE blocking_gpid = $1`
    : `SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`;
  for (let i = 0; i < 500; i++) {
    const blocked = await db.pool.query<{ n: number }>(blockedBy, [pid]);
    if (blocked.rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the success never waited for the subscription lock');
}
