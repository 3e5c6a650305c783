import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type Tx } from '@arbiter/database';

/** Writes the audit entry of a change inside the change's transaction (docs/http-edge.md "Audit log"). */
export type AuditInTx = (tx: Tx, record: ApiKeyRecord) => Promise<void>;
import type { ApiKeyRole } from './entities/api-key.entity.js';

export interface Tenant {
  id: string;
  name: string;
  timeZone: string;
  createdAt: Date;
}

/** A key that may authenticate: its current secret, and its previous one while a rotation's grace period lasts. */
export interface ActiveKey {
  id: string;
  tenantId: string;
  role: ApiKeyRole;
  name: string;
  keyHash: string;
  previousKeyHash: string | null;
  previousValidUntil: Date | null;
  expiresAt: Date | null;
  allowedOrigins: string[];
}

/** A key as its tenant's operators see it (never its secret). */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  name: string;
  role: ApiKeyRole;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  allowedOrigins: string[];
  /** Until when the secret before the last rotation still authenticates (null: not in a grace period). */
  previousValidUntil: Date | null;
}

export interface NewApiKey {
  keyId: string;
  role: ApiKeyRole;
  name: string;
  hash: string;
  prefix: string;
  expiresAt?: Date | null;
  allowedOrigins?: string[];
}

type ApiKeyRow = {
  id: string;
  tenant_id: string;
  name: string;
  role: string;
  key_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  allowed_origins: unknown;
  previous_valid_until: Date | null;
};

const RECORD_COLUMNS = [
  'id',
  'tenant_id',
  'name',
  'role',
  'key_prefix',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
  'allowed_origins',
  'previous_valid_until',
] as const;

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    role: row.role as ApiKeyRole,
    prefix: row.key_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    allowedOrigins: row.allowed_origins as string[],
    previousValidUntil: row.previous_valid_until,
  };
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
  createTenantWithKeys(name: string, keys: NewApiKey[], audit?: (tx: Tx, tenant: Tenant) => Promise<void>): Promise<Tenant | null> {
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
        .values(keys.map((k) => ({ id: k.keyId, tenant_id: row.id, role: k.role, name: k.name, key_hash: k.hash, key_prefix: k.prefix })))
        .execute();
      const tenant = { id: row.id, name: row.name, timeZone: row.time_zone, createdAt: row.created_at };
      await audit?.(tx, tenant);
      return tenant;
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

  /** What changes whenever a key is created, rotated, edited, revoked or deleted: the row count and the newest `changed_at`. */
  async keyTableVersion(): Promise<KeyTableVersion> {
    const row = await this.database.db
      .selectFrom('api_key')
      .select((eb) => [sql<number>`count(*)::int`.as('rows'), eb.fn.max('changed_at').as('changed')])
      .executeTakeFirstOrThrow();
    const changed = row.changed === null ? '' : new Date(row.changed).toISOString();
    return { rows: row.rows, stamp: `${row.rows}:${changed}` };
  }

  /** Every key that authenticates (not revoked), for the in-memory key directory. */
  async activeKeys(): Promise<ActiveKey[]> {
    const rows = await this.database.db
      .selectFrom('api_key')
      .select(['id', 'tenant_id', 'role', 'name', 'key_hash', 'previous_key_hash', 'previous_valid_until', 'expires_at', 'allowed_origins'])
      .where('revoked_at', 'is', null)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      role: r.role as ApiKeyRole,
      name: r.name,
      keyHash: r.key_hash,
      previousKeyHash: r.previous_key_hash,
      previousValidUntil: r.previous_valid_until,
      expiresAt: r.expires_at,
      allowedOrigins: r.allowed_origins as string[],
    }));
  }

  async createKey(tenantId: TenantId, key: NewApiKey, audit?: AuditInTx): Promise<ApiKeyRecord> {
    return this.database.transaction(async (tx) => {
      const row = await tx
        .insertInto('api_key')
        .values({
          id: key.keyId,
          tenant_id: tenantId,
          role: key.role,
          name: key.name,
          key_hash: key.hash,
          key_prefix: key.prefix,
          expires_at: key.expiresAt ?? null,
          allowed_origins: JSON.stringify(key.allowedOrigins ?? []),
        })
        .returning(RECORD_COLUMNS)
        .executeTakeFirstOrThrow();
      const record = toRecord(row);
      await audit?.(tx, record);
      return record;
    });
  }

  /** The tenant's keys, revoked ones included, newest first. */
  async listKeys(tenantId: TenantId): Promise<ApiKeyRecord[]> {
    const rows = await this.database.db
      .selectFrom('api_key')
      .select(RECORD_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async findKey(tenantId: TenantId, keyId: string): Promise<ApiKeyRecord | null> {
    const row = await this.database.db
      .selectFrom('api_key')
      .select(RECORD_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', keyId)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** The key's secrets and revocation, its row locked until the transaction ends (revoke and rotate serialise). */
  private lockKey(tx: Tx, tenantId: TenantId, keyId: string) {
    return tx
      .selectFrom('api_key')
      .select(['key_hash', 'previous_key_hash', 'revoked_at'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', keyId)
      .forUpdate()
      .executeTakeFirst();
  }

  /**
   * Revokes the key (idempotent: a revoked key keeps its first revocation time). Returns the secrets
   * that stop authenticating, or null when the tenant has no such key.
   */
  async revokeKey(tenantId: TenantId, keyId: string, audit?: AuditInTx): Promise<{ record: ApiKeyRecord; hashes: string[] } | null> {
    return this.database.transaction(async (tx) => {
      const before = await this.lockKey(tx, tenantId, keyId);
      if (!before) return null;
      const row =
        before.revoked_at === null
          ? await tx
              .updateTable('api_key')
              .set({ revoked_at: sql`now()`, changed_at: sql`now()` })
              .where('tenant_id', '=', tenantId)
              .where('id', '=', keyId)
              .returning(RECORD_COLUMNS)
              .executeTakeFirstOrThrow()
          : await tx.selectFrom('api_key').select(RECORD_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', keyId).executeTakeFirstOrThrow();
      const hashes = [before.key_hash, before.previous_key_hash].filter((h): h is string => h !== null);
      const record = toRecord(row);
      if (before.revoked_at === null) await audit?.(tx, record);
      return { record, hashes };
    });
  }

  /**
   * Gives the key a new secret; the current one keeps authenticating until `previousValidUntil` (null:
   * stops now). A secret still in an earlier rotation's grace period stops now. Null when the tenant
   * has no such key; `revoked` when it is revoked.
   */
  async rotateKey(
    tenantId: TenantId,
    keyId: string,
    secret: { hash: string; prefix: string },
    previousValidUntil: Date | null,
    audit?: AuditInTx,
  ): Promise<{ record: ApiKeyRecord; retiredHashes: string[]; previousHash: string } | 'revoked' | null> {
    return this.database.transaction(async (tx) => {
      const before = await this.lockKey(tx, tenantId, keyId);
      if (!before) return null;
      if (before.revoked_at !== null) return 'revoked';
      const row = await tx
        .updateTable('api_key')
        .set({
          key_hash: secret.hash,
          key_prefix: secret.prefix,
          previous_key_hash: previousValidUntil === null ? null : before.key_hash,
          previous_valid_until: previousValidUntil,
          changed_at: sql`now()`,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', keyId)
        .returning(RECORD_COLUMNS)
        .executeTakeFirstOrThrow();
      const retired = [before.previous_key_hash, previousValidUntil === null ? before.key_hash : null].filter((h): h is string => h !== null);
      const record = toRecord(row);
      await audit?.(tx, record);
      return { record, retiredHashes: retired, previousHash: before.key_hash };
    });
  }

  /**
   * Writes when keys were last used, in one statement for many keys (the key directory's batch,
   * docs/http-edge.md "Keys"). Platform-level like the directory's load: keys are a reference table.
   * Leaves `changed_at` alone, so replicas do not reload their directories for it.
   */
  async recordKeyUsage(usage: { keyId: string; usedAt: Date }[]): Promise<void> {
    if (usage.length === 0) return;
    const values = sql.join(usage.map((u) => sql`(${u.keyId}::uuid, ${u.usedAt.toISOString()}::timestamptz)`));
    await sql`
      UPDATE api_key k SET last_used_at = greatest(k.last_used_at, v.used_at)
      FROM (VALUES ${values}) AS v(id, used_at)
      WHERE k.id = v.id`.execute(this.database.db);
  }
}
