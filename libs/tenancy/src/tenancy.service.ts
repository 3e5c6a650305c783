import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { assertNever, asTenantId, DatabaseNotReadyError, type TenantId } from '@arbiter/common';
import { ApiKeyDirectory, type DirectoryKey } from './api-key-directory.js';
import { INITIAL_KEY_ROLES, type ApiKeyRole } from './entities/api-key.entity.js';
import { generateApiKey, hashApiKey } from './api-key.util.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { AuditLog } from './audit/audit-log.js';
import { type ActiveKey, type ApiKeyRecord, type AuditInTx, TenancyRepository } from './tenancy.repository.js';

export interface CreatedTenant {
  id: TenantId;
  name: string;
  createdAt: Date;
  apiKeys: Record<(typeof INITIAL_KEY_ROLES)[number], string>;
}

export interface ResolvedKey {
  keyId: string;
  tenantId: TenantId;
  role: ApiKeyRole;
  name: string;
  allowedOrigins: readonly string[];
}

export interface NewKeyRequest {
  name: string;
  role: ApiKeyRole;
  expiresAt?: Date;
  allowedOrigins?: string[];
}

/** A key and its secret, which is shown only in this answer. */
export interface IssuedKey {
  record: ApiKeyRecord;
  key: string;
}

/** How long an answer about a key is given from memory before the key table is checked again (docs/http-edge.md "Keys"). */
export const KEY_DIRECTORY_FRESH_MS = 1000;
/** How often the last-used times of keys are written, in one statement (docs/http-edge.md "Keys"). */
export const KEY_USAGE_FLUSH_MS = 60_000;

/** The directory's entries for one key row: its current secret and, in a rotation's grace period, the previous one. */
function directoryEntries(k: ActiveKey): [string, DirectoryKey][] {
  const base = { keyId: k.id, tenantId: k.tenantId, role: k.role, name: k.name, allowedOrigins: k.allowedOrigins };
  const expires = k.expiresAt?.getTime() ?? null;
  const entries: [string, DirectoryKey][] = [[k.keyHash, { ...base, validUntil: expires }]];
  if (k.previousKeyHash && k.previousValidUntil) {
    const until = k.previousValidUntil.getTime();
    entries.push([k.previousKeyHash, { ...base, validUntil: expires === null ? until : Math.min(expires, until) }]);
  }
  return entries;
}

@Injectable()
export class TenancyService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('TenancyService');
  private readonly directory: ApiKeyDirectory;
  private usageTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: TenancyRepository,
    private readonly audit: AuditLog,
  ) {
    this.directory = new ApiKeyDirectory(
      {
        version: () => repository.keyTableVersion(),
        load: async () => new Map((await repository.activeKeys()).flatMap(directoryEntries)),
      },
      { freshMs: KEY_DIRECTORY_FRESH_MS },
    );
  }

  onModuleInit(): void {
    this.usageTimer = setInterval(
      () => void this.flushKeyUsage().catch((error: unknown) => this.logger.warn({ msg: 'key usage not written', error: String(error) })),
      KEY_USAGE_FLUSH_MS,
    );
    this.usageTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.usageTimer) clearInterval(this.usageTimer);
    await this.flushKeyUsage().catch((error: unknown) => this.logger.warn({ msg: 'key usage not written at shutdown', error: String(error) }));
  }

  /** Writes when keys were last used since the previous flush: one statement, whatever the number of requests. */
  async flushKeyUsage(): Promise<void> {
    const used = this.directory.drainUsage();
    await this.repository.recordKeyUsage([...used].map(([keyId, at]) => ({ keyId, usedAt: new Date(at) })));
  }

  async createTenant(name: string): Promise<CreatedTenant> {
    const generated = INITIAL_KEY_ROLES.map((role) => ({ role, name: role, keyId: randomUUID(), ...generateApiKey(role) }));
    const tenant = await this.repository.createTenantWithKeys(name, generated, (tx, created) =>
      this.audit.record(tx, created.id, {
        action: 'create',
        resourceType: 'tenant',
        resourceId: created.id,
        label: created.name,
        summary: { keys: generated.map((g) => g.role) },
      }),
    );
    if (!tenant) throw new TenancyException(TenancyErrorCode.TenantNameTaken, name);
    for (const g of generated)
      this.directory.add(g.hash, { keyId: g.keyId, tenantId: tenant.id, role: g.role, name: g.name, allowedOrigins: [], validUntil: null });
    const apiKeys = Object.fromEntries(generated.map((g) => [g.role, g.key])) as CreatedTenant['apiKeys'];
    return { id: asTenantId(tenant.id), name: tenant.name, createdAt: tenant.createdAt, apiKeys };
  }

  /** A named key with a role; its secret is in the answer only (docs/http-edge.md "Keys"). */
  async createKey(tenantId: TenantId, request: NewKeyRequest): Promise<IssuedKey> {
    await this.requireTenant(tenantId);
    const keyId = randomUUID();
    const secret = generateApiKey(request.role);
    const record = await this.repository.createKey(
      tenantId,
      {
        keyId,
        role: request.role,
        name: request.name,
        hash: secret.hash,
        prefix: secret.prefix,
        expiresAt: request.expiresAt ?? null,
        allowedOrigins: request.allowedOrigins ?? [],
      },
      this.keyAudit('create'),
    );
    this.directory.add(secret.hash, {
      keyId,
      tenantId,
      role: request.role,
      name: request.name,
      allowedOrigins: record.allowedOrigins,
      validUntil: record.expiresAt?.getTime() ?? null,
    });
    return { record, key: secret.key };
  }

  async listKeys(tenantId: TenantId): Promise<ApiKeyRecord[]> {
    await this.requireTenant(tenantId);
    return this.repository.listKeys(tenantId);
  }

  /** Revokes a key: refused at once here, within `KEY_DIRECTORY_FRESH_MS` on every other replica. */
  async revokeKey(tenantId: TenantId, keyId: string): Promise<ApiKeyRecord> {
    const revoked = await this.repository.revokeKey(tenantId, keyId, this.keyAudit('revoke'));
    if (!revoked) throw new TenancyException(TenancyErrorCode.ApiKeyNotFound, keyId);
    for (const hash of revoked.hashes) this.directory.remove(hash);
    return revoked.record;
  }

  /** A new secret for the key; the old one authenticates for `gracePeriodSeconds` more (0: stops now). */
  async rotateKey(tenantId: TenantId, keyId: string, gracePeriodSeconds: number): Promise<IssuedKey> {
    const current = await this.repository.findKey(tenantId, keyId);
    if (!current) throw new TenancyException(TenancyErrorCode.ApiKeyNotFound, keyId);
    const secret = generateApiKey(current.role);
    const previousValidUntil = gracePeriodSeconds > 0 ? new Date(Date.now() + gracePeriodSeconds * 1000) : null;
    const rotated = await this.repository.rotateKey(tenantId, keyId, secret, previousValidUntil, this.keyAudit('rotate', { gracePeriodSeconds }));
    if (rotated === null) throw new TenancyException(TenancyErrorCode.ApiKeyNotFound, keyId);
    if (rotated === 'revoked') throw new TenancyException(TenancyErrorCode.ApiKeyRevoked, keyId);
    const { record } = rotated;
    for (const hash of rotated.retiredHashes) this.directory.remove(hash);
    const expires = record.expiresAt?.getTime() ?? null;
    const base = { keyId, tenantId, role: record.role, name: record.name, allowedOrigins: record.allowedOrigins };
    this.directory.add(secret.hash, { ...base, validUntil: expires });
    if (previousValidUntil) {
      const until = previousValidUntil.getTime();
      this.directory.add(rotated.previousHash, { ...base, validUntil: expires === null ? until : Math.min(expires, until) });
    }
    return { record, key: secret.key };
  }

  /** The audit entry of a key change: the key's name, role and settings, never its secret. */
  private keyAudit(action: string, extra: Record<string, unknown> = {}): AuditInTx {
    return (tx, record) =>
      this.audit.record(tx, record.tenantId, {
        action,
        resourceType: 'api_key',
        resourceId: record.id,
        label: record.name,
        summary: {
          role: record.role,
          prefix: record.prefix,
          expiresAt: record.expiresAt?.toISOString() ?? null,
          allowedOrigins: record.allowedOrigins,
          ...extra,
        },
      });
  }

  private async requireTenant(tenantId: TenantId): Promise<void> {
    if (!(await this.repository.findTenant(tenantId))) throw new TenancyException(TenancyErrorCode.TenantNotFound, tenantId);
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

  /** Null for unknown, revoked or rotated-out keys; answered from memory (no database round trip per wrong key). */
  async resolveApiKey(rawKey: string): Promise<ResolvedKey | 'expired' | null> {
    const answer = await this.directory.resolve(hashApiKey(rawKey));
    switch (answer.kind) {
      case 'found': {
        const { key } = answer;
        return { keyId: key.keyId, tenantId: asTenantId(key.tenantId), role: key.role as ApiKeyRole, name: key.name, allowedOrigins: key.allowedOrigins };
      }
      case 'expired':
        return 'expired';
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
