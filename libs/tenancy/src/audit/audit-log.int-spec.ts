import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestContextStore, type TenantId } from '@arbiter/common';
import { AppConfig, validateEnvironment } from '@arbiter/config';
import type { Database } from '@arbiter/database';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { AuditLog } from './audit-log.js';
import { AuditRepository } from './audit.repository.js';

/** Issue 25 item 4: an audit entry commits and rolls back with the change it records (docs/http-edge.md "Audit log"). */
describe('AuditLog on a real database', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let database: Database;
  let repository: AuditRepository;
  let audit: AuditLog;
  let tenant: TenantId;
  let other: TenantId;

  beforeAll(async () => {
    medium = await newMediumTest();
    db = medium.db;
    database = medium.database;
    repository = new AuditRepository(database);
    audit = new AuditLog(repository, new AppConfig(validateEnvironment({ AUDIT_RETENTION_DAYS: '30' })));
    [tenant, other] = await medium.tenants('audit-a', 'audit-b');
  }, 240_000);
  afterAll(() => medium?.close());

  const count = async (resourceId: string) =>
    (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_entry WHERE resource_id = $1`, [resourceId])).rows[0].n;

  it('commits the entry with its change, names the actor and request from the request context, and keeps secrets out', async () => {
    await RequestContextStore.run('req-commit-1', async () => {
      RequestContextStore.setActor({ kind: 'api_key', keyId: '6f1f1f1f-1f1f-4f1f-8f1f-1f1f1f1f1f1f', name: '运维 Li' });
      await database.transaction(async (tx) => {
        await tx.insertInto('audit_settings').values({ tenant_id: tenant, retention_days: 90 }).execute();
        await audit.record(tx, tenant, {
          action: 'update',
          resourceType: 'audit_settings',
          resourceId: 'commit-1',
          summary: { after: 90, secret: 'x', key: 'ak_op_y' },
        });
      });
    });
    const page = await repository.list(tenant, {}, null, 10);
    const entry = page.items.find((e) => e.resourceId === 'commit-1');
    expect(entry).toMatchObject({
      action: 'update',
      resourceType: 'audit_settings',
      requestId: 'req-commit-1',
      actor: { kind: 'api_key', keyId: '6f1f1f1f-1f1f-4f1f-8f1f-1f1f1f1f1f1f', name: '运维 Li' },
      summary: { after: 90 },
    });
    expect(await repository.retentionDays(tenant)).toBe(90);
  });

  it('rolls the entry back with a change that fails, and writes nothing of either', async () => {
    await expect(
      database.transaction(async (tx) => {
        await audit.record(tx, tenant, { action: 'update', resourceType: 'audit_settings', resourceId: 'rollback-1' });
        await tx.updateTable('audit_settings').set({ retention_days: 0 }).where('tenant_id', '=', tenant).execute(); // violates the CHECK
      }),
    ).rejects.toThrow();
    expect(await count('rollback-1')).toBe(0);
    expect(await repository.retentionDays(tenant)).toBe(90);
  });

  it('pages newest first with filters, per tenant or across tenants, and purges past each tenant’s retention', async () => {
    for (let i = 0; i < 5; i++)
      await audit.record(database.db, other, { action: i % 2 ? 'delete' : 'create', resourceType: 'intent_rule', resourceId: `r${i}` });
    const first = await repository.list(other, { resourceType: 'intent_rule' }, null, 2);
    expect(first.items.map((e) => e.resourceId)).toEqual(['r4', 'r3']);
    const next = await repository.list(
      other,
      { resourceType: 'intent_rule' },
      { createdAt: '9999-01-01T00:00:00Z', id: '00000000-0000-4000-8000-000000000000' },
      100,
    );
    expect(next.items).toHaveLength(5);
    expect((await repository.list(other, { action: 'delete' }, null, 100)).items.map((e) => e.resourceId)).toEqual(['r3', 'r1']);
    expect((await repository.list(null, {}, null, 100)).items.map((e) => e.tenantId)).toEqual(expect.arrayContaining([tenant, other]));
    expect((await repository.list(tenant, {}, null, 100)).items.every((e) => e.tenantId === tenant)).toBe(true);
    // Past retention: `tenant` keeps 90 days, `other` the default 30.
    await db.pool.query(`UPDATE audit_entry SET occurred_at = now() - interval '60 days' WHERE tenant_id = ANY($1::uuid[])`, [[tenant, other]]);
    expect(await audit.purge()).toBe(5);
    expect((await repository.list(other, {}, null, 100)).items).toHaveLength(0);
    expect((await repository.list(tenant, {}, null, 100)).items.length).toBeGreaterThan(0);
  });
});
