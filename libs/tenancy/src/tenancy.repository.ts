import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { ApiKeyEntity, type ApiKeyRole } from './api-key.entity.js';
import { TenantEntity } from './tenant.entity.js';

/** Tenants are platform-level rows (admin scope); API keys are read by hash during authentication. */
@Injectable()
export class TenancyRepository {
  constructor(
    @InjectRepository(TenantEntity) private readonly tenants: Repository<TenantEntity>,
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
  ) {}

  /** Creates the tenant and its keys in one transaction; returns null when the name is taken. */
  async createTenantWithKeys(name: string, keys: { keyId: string; role: ApiKeyRole; hash: string; prefix: string }[]): Promise<TenantEntity | null> {
    return this.tenants.manager.transaction(async (em) => {
      const inserted = await em
        .createQueryBuilder()
        .insert()
        .into(TenantEntity)
        .values({ name })
        .orIgnore()
        .returning(['id', 'name', 'timeZone', 'createdAt'])
        .execute();
      const row = inserted.raw[0] as { id: string; name: string; time_zone: string; created_at: Date } | undefined;
      if (!row) return null;
      await em.insert(
        ApiKeyEntity,
        keys.map((k) => ({ id: k.keyId, tenantId: row.id, role: k.role, keyHash: k.hash, keyPrefix: k.prefix })),
      );
      return Object.assign(new TenantEntity(), { id: row.id, name: row.name, timeZone: row.time_zone, createdAt: row.created_at });
    });
  }

  listTenants(): Promise<TenantEntity[]> {
    return this.tenants.find({ order: { createdAt: 'ASC' } });
  }

  countTenants(): Promise<number> {
    return this.tenants.count();
  }

  findTenant(tenantId: TenantId): Promise<TenantEntity | null> {
    return this.tenants.findOneBy({ id: tenantId });
  }

  /** Whether the key table holds any row at all (revoked included). */
  async anyApiKey(): Promise<boolean> {
    const rows = await this.keys.query<Array<{ any: boolean }>>('SELECT EXISTS (SELECT 1 FROM api_key) AS any');
    return rows[0]?.any === true;
  }

  findActiveKeyByHash(hash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ keyHash: hash, revokedAt: IsNull() });
  }

  /**
   * What changes whenever a key is created, revoked or deleted: the row count and the newest creation
   * and revocation times (one index-free aggregate over a small platform table; docs/FOUNDATION.md "Auth").
   */
  async keyTableVersion(): Promise<KeyTableVersion> {
    const rows = await this.keys.query<Array<{ rows: number; created: Date | null; revoked: Date | null }>>(
      'SELECT count(*)::int AS rows, max(created_at) AS created, max(revoked_at) AS revoked FROM api_key',
    );
    const row = rows[0];
    return { rows: row?.rows ?? 0, stamp: `${row?.rows ?? 0}:${row?.created?.toISOString() ?? ''}:${row?.revoked?.toISOString() ?? ''}` };
  }

  /** Every key that authenticates (not revoked), for the in-memory key directory. */
  activeKeys(): Promise<Pick<ApiKeyEntity, 'id' | 'tenantId' | 'role' | 'keyHash'>[]> {
    return this.keys.find({ select: { id: true, tenantId: true, role: true, keyHash: true }, where: { revokedAt: IsNull() } });
  }
}

export interface KeyTableVersion {
  rows: number;
  /** Equal stamps: no key was created, revoked or deleted in between. */
  stamp: string;
}
