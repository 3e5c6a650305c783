import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { assertNever, asTenantId, DatabaseNotReadyError, type TenantId } from '@arbiter/common';
import { ApiKeyDirectory } from './api-key-directory.js';
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

/** How long a wrong key is answered from memory before the key table is checked again (docs/http-edge.md "Keys"). */
export const KEY_DIRECTORY_FRESH_MS = 1000;

@Injectable()
export class TenancyService {
  private readonly directory: ApiKeyDirectory;

  constructor(private readonly repository: TenancyRepository) {
    this.directory = new ApiKeyDirectory(
      {
        version: () => repository.keyTableVersion(),
        load: async () => new Map((await repository.activeKeys()).map((k) => [k.keyHash, { keyId: k.id, tenantId: k.tenantId, role: k.role }])),
      },
      { freshMs: KEY_DIRECTORY_FRESH_MS },
    );
  }

  async createTenant(name: string): Promise<CreatedTenant> {
    const generated = API_KEY_ROLES.map((role) => ({ role, keyId: randomUUID(), ...generateApiKey(role) }));
    const tenant = await this.repository.createTenantWithKeys(name, generated);
    if (!tenant) throw new TenancyException(TenancyErrorCode.TenantNameTaken, name);
    for (const g of generated) this.directory.add(g.hash, { keyId: g.keyId, tenantId: tenant.id, role: g.role });
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

  /** Null for unknown or revoked keys; answered from memory (no database round trip per wrong key). */
  async resolveApiKey(rawKey: string): Promise<ResolvedKey | null> {
    const answer = await this.directory.resolve(hashApiKey(rawKey));
    switch (answer.kind) {
      case 'found':
        return { keyId: answer.key.keyId, tenantId: asTenantId(answer.key.tenantId), role: answer.key.role as ApiKeyRole };
      case 'unknown':
        return null;
      case 'restoring':
        // An emptied key table (a drop-and-restore loading its data) says nothing about the key: 503 and retry, not 401.
        throw new DatabaseNotReadyError('api_key table is empty (restore in progress?)');
      default:
        return assertNever(answer, 'key directory answer');
    }
  }
}
