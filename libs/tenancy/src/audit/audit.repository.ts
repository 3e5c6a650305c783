import { Injectable } from '@nestjs/common';
import { exactTimestampSql, toPage, type KeysetCursor, type Page, type TenantId } from '@arbiter/common';
import { Database, sql, type Db, type Tx } from '@arbiter/database';
import type { AuditEntry, AuditFilter } from './audit.types.js';

export interface AuditRow {
  tenantId: string;
  actorKind: 'api_key' | 'platform_admin' | 'system';
  actorKeyId: string | null;
  actorName: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  label: string | null;
  requestId: string | null;
  summary: unknown;
}

/** The audit log's tables (migration 0252), on the typed data layer (docs/data-layer.md). */
@Injectable()
export class AuditRepository {
  constructor(private readonly database: Database) {}

  /** Writes one entry on `executor`: the transaction of the change it records. */
  async insert(executor: Db | Tx, row: AuditRow): Promise<void> {
    await executor
      .insertInto('audit_entry')
      .values({
        tenant_id: row.tenantId,
        actor_kind: row.actorKind,
        actor_key_id: row.actorKeyId,
        actor_name: row.actorName,
        action: row.action,
        resource_type: row.resourceType,
        resource_id: row.resourceId,
        label: row.label,
        request_id: row.requestId,
        summary: JSON.stringify(row.summary ?? {}),
      })
      .execute();
  }

  /** A page of one tenant's log (or every tenant's with null), newest first. */
  async list(tenantId: TenantId | null, filter: AuditFilter, after: KeysetCursor | null, limit: number): Promise<Page<AuditEntry>> {
    let query = this.database.db
      .selectFrom('audit_entry')
      .selectAll()
      .select([sql<string>`${sql.raw(exactTimestampSql('occurred_at'))}`.as('cursorTs'), sql<string>`id::text`.as('cursorId')])
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (tenantId !== null) query = query.where('tenant_id', '=', tenantId);
    if (filter.from) query = query.where('occurred_at', '>=', filter.from);
    if (filter.to) query = query.where('occurred_at', '<', filter.to);
    if (filter.resourceType) query = query.where('resource_type', '=', filter.resourceType);
    if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.actorKeyId) query = query.where('actor_key_id', '=', filter.actorKeyId);
    if (after) query = query.where(sql<boolean>`(occurred_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
    const rows = await query.execute();
    return toPage(rows, limit, (r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      occurredAt: r.occurred_at,
      actor:
        r.actor_kind === 'system'
          ? { kind: 'system' as const }
          : { kind: r.actor_kind as 'api_key' | 'platform_admin', keyId: r.actor_key_id ?? undefined, name: r.actor_name ?? undefined },
      action: r.action,
      resourceType: r.resource_type,
      resourceId: r.resource_id,
      label: r.label,
      requestId: r.request_id,
      summary: r.summary as Record<string, unknown>,
    }));
  }

  async retentionDays(tenantId: TenantId): Promise<number | null> {
    const row = await this.database.db.selectFrom('audit_settings').select('retention_days').where('tenant_id', '=', tenantId).executeTakeFirst();
    return row?.retention_days ?? null;
  }

  /** Sets the retention on `executor` (the transaction that also records the change). */
  async setRetentionDays(executor: Db | Tx, tenantId: TenantId, days: number): Promise<void> {
    await executor
      .insertInto('audit_settings')
      .values({ tenant_id: tenantId, retention_days: days })
      .onConflict((c) => c.column('tenant_id').doUpdateSet((eb) => ({ retention_days: days, updated_at: eb.ref('excluded.updated_at') })))
      .execute();
  }

  /**
   * Deletes entries past their tenant's retention (`defaultDays` where a tenant set none). Platform-level
   * housekeeping, one statement for all tenants, bounded by `batch` rows.
   */
  async purge(defaultDays: number, batch = 10_000): Promise<number> {
    const result = await sql`
      DELETE FROM audit_entry e
       WHERE (e.tenant_id, e.id) IN (
         SELECT a.tenant_id, a.id
           FROM audit_entry a
           LEFT JOIN audit_settings s ON s.tenant_id = a.tenant_id
          WHERE a.occurred_at < now() - make_interval(days => coalesce(s.retention_days, ${defaultDays}::int))
          LIMIT ${batch}::int)`.execute(this.database.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
