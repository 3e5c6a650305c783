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
  async createTenantWithKeys(name: string, keys: { role: ApiKeyRole; hash: string; prefix: string }[]): Promise<TenantEntity | null> {
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
        keys.map((k) => ({ tenantId: row.id, role: k.role, keyHash: k.hash, keyPrefix: k.prefix })),
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
}
