import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql } from '@arbiter/database';
import type { ApiKeyRole } from './api-key.entity.js';

export interface Tenant {
  id: string;
  name: string;
  timeZone: string;
  createdAt: Date;
}

export interface ActiveKey {
  id: string;
  tenantId: string;
  role: ApiKeyRole;
  keyHash: string;
}

export interface KeyTableVersion {
  rows: number;
  /** Equal stamps: no key was created, revoked or deleted in between. */
  stamp: string;
}

/**
 * Tenants are platform-level rows (admin scope); API keys are read whole into the key directory
 * (docs/http-edge.md "Keys"). On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class TenancyRepository {
  constructor(private readonly database: Database) {}

  /** Creates the tenant and its keys in one transaction; returns null when the name is taken (folded, migration 0190). */
  createTenantWithKeys(name: string, keys: { keyId: string; role: ApiKeyRole; hash: string; prefix: string }[]): Promise<Tenant | null> {
    return this.database.transaction(async (tx) => {
      const row = await tx
        .insertInto('tenant')
        .values({ name })
        .onConflict((c) => c.doNothing())
        .returning(['id', 'name', 'time_zone', 'created_at'])
        .executeTakeFirst();
      if (!row) return null;
      await tx
        .insertInto('api_key')
        .values(keys.map((k) => ({ id: k.keyId, tenant_id: row.id, role: k.role, key_hash: k.hash, key_prefix: k.prefix })))
        .execute();
      return { id: row.id, name: row.name, timeZone: row.time_zone, createdAt: row.created_at };
    });
  }

  async listTenants(): Promise<Tenant[]> {
    const rows = await this.database.db.selectFrom('tenant').select(['id', 'name', 'time_zone', 'created_at']).orderBy('created_at').orderBy('id').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, timeZone: r.time_zone, createdAt: r.created_at }));
  }

  async countTenants(): Promise<number> {
    const row = await this.database.db
      .selectFrom('tenant')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async findTenant(tenantId: TenantId): Promise<Tenant | null> {
    const row = await this.database.db.selectFrom('tenant').select(['id', 'name', 'time_zone', 'created_at']).where('id', '=', tenantId).executeTakeFirst();
    return row ? { id: row.id, name: row.name, timeZone: row.time_zone, createdAt: row.created_at } : null;
  }

  /** What changes whenever a key is created, revoked or deleted: the row count and the newest creation and revocation times. */
  async keyTableVersion(): Promise<KeyTableVersion> {
    const row = await this.database.db
      .selectFrom('api_key')
      .select((eb) => [sql<number>`count(*)::int`.as('rows'), eb.fn.max('created_at').as('created'), eb.fn.max('revoked_at').as('revoked')])
      .executeTakeFirstOrThrow();
    const stamp = (value: Date | string | null) => (value === null ? '' : new Date(value).toISOString());
    return { rows: row.rows, stamp: `${row.rows}:${stamp(row.created)}:${stamp(row.revoked)}` };
  }

  /** Every key that authenticates (not revoked), for the in-memory key directory. */
  async activeKeys(): Promise<ActiveKey[]> {
    const rows = await this.database.db.selectFrom('api_key').select(['id', 'tenant_id', 'role', 'key_hash']).where('revoked_at', 'is', null).execute();
    return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, role: r.role as ApiKeyRole, keyHash: r.key_hash }));
  }
}
