import { Injectable } from '@nestjs/common';
import { asTenantId, DatabaseNotReadyError, type TenantId } from '@arbiter/common';
import { API_KEY_ROLES, type ApiKeyRole } from './api-key.entity.js';
import { generateApiKey, hashApiKey } from './api-key.util.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { TenancyRepository } from './tenancy.repository.js';

export interface CreatedTenant {
  id: TenantId;
  name: string;
  createdAt: Date;
  apiKeys: Record<ApiKeyRole, string>;
}

export interface ResolvedKey {
  keyId: string;
  tenantId: TenantId;
  role: ApiKeyRole;
}

/** Authentication runs on every request: remember resolved keys briefly (keys are never edited, only created). */
const KEY_CACHE_TTL_MS = 30_000;
const KEY_CACHE_MAX = 10_000;

@Injectable()
export class TenancyService {
  private readonly keyCache = new Map<string, { value: ResolvedKey | null; expires: number }>();
  /** Whether this process has seen a key in the database: once it has, an empty key table means a restore is under way. */
  private keysSeen = false;

  constructor(private readonly repository: TenancyRepository) {}

  async createTenant(name: string): Promise<CreatedTenant> {
    const generated = API_KEY_ROLES.map((role) => ({ role, ...generateApiKey(role) }));
    const tenant = await this.repository.createTenantWithKeys(name, generated);
    if (!tenant) throw new TenancyException(TenancyErrorCode.TenantNameTaken, name);
    this.keysSeen = true;
    const apiKeys = Object.fromEntries(generated.map((g) => [g.role, g.key])) as Record<ApiKeyRole, string>;
    return { id: asTenantId(tenant.id), name: tenant.name, createdAt: tenant.createdAt, apiKeys };
  }

  listTenants() {
    return this.repository.listTenants();
  }

  countTenants(): Promise<number> {
    return this.repository.countTenants();
  }

  getTenant(tenantId: TenantId) {
    return this.repository.findTenant(tenantId);
  }

  /** Null for unknown or revoked keys. */
  async resolveApiKey(rawKey: string): Promise<ResolvedKey | null> {
    const hash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = this.keyCache.get(hash);
    if (cached && cached.expires > now) return cached.value;
    const key = await this.repository.findActiveKeyByHash(hash);
    if (key) this.keysSeen = true;
    // A miss against an emptied key table (a drop-and-restore loading its data) says nothing about the key:
    // 503 and retry, not 401 (README, Faults and outages). A fresh install that never had keys answers 401.
    else if (this.keysSeen && !(await this.repository.anyApiKey())) throw new DatabaseNotReadyError('api_key table is empty (restore in progress?)');
    const value = key ? { keyId: key.id, tenantId: asTenantId(key.tenantId), role: key.role } : null;
    if (this.keyCache.size >= KEY_CACHE_MAX) this.keyCache.clear();
    // Unknown keys are cached briefly too, so a flood of bad keys does not hammer the database.
    this.keyCache.set(hash, { value, expires: now + (value ? KEY_CACHE_TTL_MS : KEY_CACHE_TTL_MS / 10) });
    return value;
  }
}
