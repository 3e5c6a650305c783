import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db, type IntentRule, type Selectable } from '@arbiter/database';
import type { IntentAction, IntentConfigOverride } from './routing/index.js';

/** A rule row as stored (camelCase). */
export interface StoredIntentRule {
  id: string;
  tenantId: string;
  intent: string;
  description: string | null;
  keywords: string[];
  patterns: string[];
  semanticExamples: string[];
  intentVector: number[] | null;
  priority: number;
  enabled: boolean;
  reply: string | null;
  action: IntentAction;
  confidenceProfile: string;
  createdAt: Date;
  updatedAt: Date;
}

export type IntentRuleFields = Omit<StoredIntentRule, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>;

/** Example embeddings of one rule in one vector space. */
export interface StoredEmbedding {
  model: string;
  dim: number;
  count: number;
  vectors: Buffer;
}

export interface EmbeddingSummary {
  model: string;
  dim: number;
  count: number;
}

export interface IntentVersions {
  rules: string;
  config: string;
}

const RULE_COLUMNS = [
  'id',
  'tenant_id',
  'intent',
  'description',
  'keywords',
  'patterns',
  'semantic_examples',
  'intent_vector',
  'priority',
  'enabled',
  'reply',
  'action',
  'confidence_profile',
  'created_at',
  'updated_at',
] as const;

function toRule(r: Selectable<IntentRule>): StoredIntentRule {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    intent: r.intent,
    description: r.description,
    keywords: r.keywords as string[],
    patterns: r.patterns as string[],
    semanticExamples: r.semantic_examples as string[],
    intentVector: r.intent_vector as number[] | null,
    priority: r.priority,
    enabled: r.enabled,
    reply: r.reply,
    action: r.action as IntentAction,
    confidenceProfile: r.confidence_profile,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The stored form of a rule's fields (jsonb columns as JSON text). */
function ruleValues(f: IntentRuleFields) {
  return {
    intent: f.intent,
    description: f.description,
    keywords: JSON.stringify(f.keywords),
    patterns: JSON.stringify(f.patterns),
    semantic_examples: JSON.stringify(f.semanticExamples),
    intent_vector: f.intentVector === null ? null : JSON.stringify(f.intentVector),
    priority: f.priority,
    enabled: f.enabled,
    reply: f.reply,
    action: f.action,
    confidence_profile: f.confidenceProfile,
  };
}

/**
 * Rules (`r`) with examples lacking embeddings of their count in `model`'s space: one condition for the batch, its
 * count and the tenant list, matching the embedding by the rule's key (tenant_id, id) as the count always did.
 */
const staleIn = (model: string) => sql<boolean>`jsonb_array_length(r.semantic_examples) > 0
  AND NOT EXISTS (SELECT 1 FROM intent_rule_embedding e
                   WHERE e.tenant_id = r.tenant_id AND e.rule_id = r.id AND e.embedding_model = ${model}
                     AND e.example_count = jsonb_array_length(r.semantic_examples))`;

const RULE_KEYSET = typedKeyset('created_at', 'id');

/** A rule write checked against one version of the rule set found another one at commit (nothing was written). */
export class RuleSetChangedError extends Error {
  constructor(tenantId: string) {
    super(`the intent rule set of tenant ${tenantId} changed while a write was checked`);
    this.name = 'RuleSetChangedError';
  }
}

/** Writes the audit entry of a change inside the change's transaction (docs/http-edge.md "Audit log"). */
export type AuditInTransaction<T> = (tx: Db, changed: T) => Promise<void>;

/** SQL of the intent module: rules, example embeddings, the tenant config override and cache versions. On the typed data layer (docs/data-layer.md). */
@Injectable()
export class IntentRepository {
  constructor(private readonly database: Database) {}

  async find(tenantId: TenantId, id: string): Promise<StoredIntentRule | null> {
    const row = await this.database.db.selectFrom('intent_rule').select(RULE_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row ? toRule(row) : null;
  }

  /** Every rule of the tenant (enabled or not) in creation order, for compiling its router. */
  async all(tenantId: TenantId): Promise<StoredIntentRule[]> {
    const rows = await this.database.db
      .selectFrom('intent_rule')
      .select(RULE_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRule);
  }

  async count(tenantId: TenantId): Promise<number> {
    const row = await this.database.db
      .selectFrom('intent_rule')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.n ?? 0;
  }

  /** Newest first, keyset over (created_at, id) at the column's microsecond precision. */
  async list(tenantId: TenantId, filter: { intent?: string }, page: PageRequest): Promise<Page<StoredIntentRule>> {
    let query = this.database.db.selectFrom('intent_rule').select(RULE_COLUMNS).select(RULE_KEYSET.cursor).where('tenant_id', '=', tenantId);
    if (filter.intent !== undefined) query = query.where('intent', '=', filter.intent);
    const rows = await query
      .where(RULE_KEYSET.after(page.after))
      .orderBy(RULE_KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, toRule);
  }

  /**
   * Inserts a rule (and its example embeddings) and bumps the tenant's rules version, atomically. With
   * `expectedRulesVersion` (the version the rule set was checked at) it throws {@link RuleSetChangedError} and writes
   * nothing when another write bumped the version meanwhile.
   */
  async insert(
    tenantId: TenantId,
    fields: IntentRuleFields,
    embedding: StoredEmbedding | null,
    audit?: AuditInTransaction<StoredIntentRule[]>,
    expectedRulesVersion: string | null = null,
  ): Promise<StoredIntentRule> {
    return this.database.transaction(async (tx) => {
      const rule = await this.insertRule(tx, tenantId, fields, embedding);
      await this.bumpRules(tx, tenantId, expectedRulesVersion);
      await audit?.(tx, [rule]);
      return rule;
    });
  }

  /** Inserts many rules in one transaction with one version bump (one router reload and retrain); `expectedRulesVersion` as in {@link insert}. */
  async insertMany(
    tenantId: TenantId,
    items: readonly { fields: IntentRuleFields; embedding: StoredEmbedding | null }[],
    audit?: AuditInTransaction<StoredIntentRule[]>,
    expectedRulesVersion: string | null = null,
  ): Promise<StoredIntentRule[]> {
    return this.database.transaction(async (tx) => {
      const rules: StoredIntentRule[] = [];
      for (const { fields, embedding } of items) rules.push(await this.insertRule(tx, tenantId, fields, embedding));
      await this.bumpRules(tx, tenantId, expectedRulesVersion);
      await audit?.(tx, rules);
      return rules;
    });
  }

  /**
   * Replaces a rule's fields; `embedding`: `keep` leaves the stored embeddings alone, null deletes them,
   * a value replaces them (all spaces). Returns null when the rule is not the tenant's; `expectedRulesVersion` as in
   * {@link insert}.
   */
  async update(
    tenantId: TenantId,
    id: string,
    fields: IntentRuleFields,
    embedding: StoredEmbedding | null | 'keep',
    audit?: AuditInTransaction<StoredIntentRule[]>,
    expectedRulesVersion: string | null = null,
  ): Promise<StoredIntentRule | null> {
    return this.database.transaction(async (tx) => {
      const updated = await tx
        .updateTable('intent_rule')
        .set({ ...ruleValues(fields), updated_at: sql<Date>`now()` })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning(RULE_COLUMNS)
        .executeTakeFirst();
      if (updated === undefined) return null;
      if (embedding !== 'keep') {
        await tx.deleteFrom('intent_rule_embedding').where('tenant_id', '=', tenantId).where('rule_id', '=', id).execute();
        if (embedding !== null) await this.writeEmbedding(tx, tenantId, id, embedding);
      }
      await this.bumpRules(tx, tenantId, expectedRulesVersion);
      const rule = toRule(updated);
      await audit?.(tx, [rule]);
      return rule;
    });
  }

  /** Deletes a rule (its embeddings go with it) and bumps the rules version; the audit entry gets the row as deleted. */
  async delete(tenantId: TenantId, id: string, audit?: AuditInTransaction<StoredIntentRule[]>): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const deleted = await tx.deleteFrom('intent_rule').where('tenant_id', '=', tenantId).where('id', '=', id).returning(RULE_COLUMNS).executeTakeFirst();
      if (deleted === undefined) return false;
      await this.bumpRules(tx, tenantId);
      await audit?.(tx, [toRule(deleted)]);
      return true;
    });
  }

  /** Stored embeddings of the tenant's rules in `model`'s space, by rule id. */
  async embeddings(tenantId: TenantId, model: string): Promise<Map<string, StoredEmbedding>> {
    const rows = await this.database.db
      .selectFrom('intent_rule_embedding')
      .select(['rule_id', 'embedding_dim', 'example_count', 'vectors'])
      .where('tenant_id', '=', tenantId)
      .where('embedding_model', '=', model)
      .execute();
    return new Map(rows.map((r) => [r.rule_id, { model, dim: r.embedding_dim, count: r.example_count, vectors: r.vectors }]));
  }

  async embeddingSummaries(tenantId: TenantId, ruleIds: string[], model: string): Promise<Map<string, EmbeddingSummary>> {
    if (ruleIds.length === 0) return new Map();
    const rows = await this.database.db
      .selectFrom('intent_rule_embedding')
      .select(['rule_id', 'embedding_dim', 'example_count'])
      .where('tenant_id', '=', tenantId)
      .where('embedding_model', '=', model)
      .where('rule_id', '=', sql<string>`ANY(${ruleIds}::uuid[])`)
      .execute();
    return new Map(rows.map((r) => [r.rule_id, { model, dim: r.embedding_dim, count: r.example_count }]));
  }

  /** Tenants having rules with examples but no embeddings (of the right count) in `model`'s space. */
  async tenantsWithStaleEmbeddings(model: string): Promise<string[]> {
    const rows = await this.database.db.selectFrom('intent_rule as r').select('r.tenant_id').distinct().where(staleIn(model)).execute();
    return rows.map((r) => r.tenant_id);
  }

  /** A batch of the tenant's rules lacking `model` embeddings, by id after `afterId`. */
  async rulesWithStaleEmbeddings(tenantId: TenantId, model: string, afterId: string | null, limit: number): Promise<StoredIntentRule[]> {
    let query = this.database.db.selectFrom('intent_rule as r').select(RULE_COLUMNS).where('r.tenant_id', '=', tenantId);
    if (afterId !== null) query = query.where('r.id', '>', afterId);
    const rows = await query.where(staleIn(model)).orderBy('r.id').limit(limit).execute();
    return rows.map(toRule);
  }

  /** How many rules `rulesWithStaleEmbeddings` would still return after `afterId` (the re-embed job's progress total). */
  async countRulesWithStaleEmbeddings(tenantId: TenantId, model: string, afterId: string | null): Promise<number> {
    let query = this.database.db
      .selectFrom('intent_rule as r')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('r.tenant_id', '=', tenantId);
    if (afterId !== null) query = query.where('r.id', '>', afterId);
    const row = await query.where(staleIn(model)).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * Stores re-embedded examples unless the rule's examples changed meanwhile (then the save that
   * changed them wrote fresh embeddings). Returns whether it was written.
   */
  async replaceEmbeddingIfCurrent(tenantId: TenantId, ruleId: string, examples: string[], embedding: StoredEmbedding): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const current = await tx
        .selectFrom('intent_rule')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', ruleId)
        .where('semantic_examples', '=', sql<string>`${JSON.stringify(examples)}::jsonb`)
        .forUpdate()
        .executeTakeFirst();
      if (current === undefined) return false;
      await tx
        .deleteFrom('intent_rule_embedding')
        .where('tenant_id', '=', tenantId)
        .where('rule_id', '=', ruleId)
        .where('embedding_model', '=', embedding.model)
        .execute();
      await this.writeEmbedding(tx, tenantId, ruleId, embedding);
      return true;
    });
  }

  /** Drops embeddings of other spaces and bumps the rules version (replicas reload the vectors). */
  async finishReembed(tenantId: TenantId, model: string): Promise<number> {
    return this.database.transaction(async (tx) => {
      const result = await tx.deleteFrom('intent_rule_embedding').where('tenant_id', '=', tenantId).where('embedding_model', '<>', model).executeTakeFirst();
      await this.bumpRules(tx, tenantId);
      return Number(result.numDeletedRows);
    });
  }

  async getOverrides(tenantId: TenantId): Promise<IntentConfigOverride> {
    return (await this.getConfigState(tenantId)).overrides;
  }

  /** The stored override and its config version ("0" before the first write). */
  async getConfigState(tenantId: TenantId): Promise<{ overrides: IntentConfigOverride; version: string }> {
    const row = await this.database.db
      .selectFrom('intent_tenant_config')
      .select(['overrides', sql<string>`config_version::text`.as('version')])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return { overrides: (row?.overrides as IntentConfigOverride | undefined) ?? {}, version: row?.version ?? '0' };
  }

  /**
   * Stores the tenant override and bumps its config version, only if the version is still `expected`
   * (optimistic concurrency: two operators' edits never overwrite each other silently).
   * Returns the new version, or null when the stored version moved on.
   */
  async putOverrides(tenantId: TenantId, overrides: IntentConfigOverride, expected: string, audit?: AuditInTransaction<string>): Promise<string | null> {
    return this.database.transaction(async (tx) => {
      const version = await this.putOverridesOn(tx, tenantId, overrides, expected);
      if (version !== null) await audit?.(tx, version);
      return version;
    });
  }

  private async putOverridesOn(tx: Db, tenantId: TenantId, overrides: IntentConfigOverride, expected: string): Promise<string | null> {
    const json = JSON.stringify(overrides);
    if (expected === '0') {
      const inserted = await sql<{ version: string }>`
        INSERT INTO intent_tenant_config (tenant_id, overrides, config_version) VALUES (${tenantId}, ${json}::jsonb, 1)
        ON CONFLICT ON CONSTRAINT uq_intent_tenant_config_tenant
        DO UPDATE SET overrides = EXCLUDED.overrides, config_version = 1, updated_at = EXCLUDED.updated_at WHERE intent_tenant_config.config_version = 0
        RETURNING config_version::text AS version`.execute(tx);
      return inserted.rows[0]?.version ?? null;
    }
    const updated = await tx
      .updateTable('intent_tenant_config')
      .set({ overrides: sql<string>`${json}::jsonb`, config_version: sql<string>`config_version + 1`, updated_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('config_version', '=', sql<string>`${expected}::bigint`)
      .returning(sql<string>`config_version::text`.as('version'))
      .executeTakeFirst();
    return updated?.version ?? null;
  }

  /** Current cache versions of the given tenants (absent row → "0"/"0"). */
  async versions(tenantIds: string[]): Promise<Map<string, IntentVersions>> {
    const out = new Map<string, IntentVersions>(tenantIds.map((t) => [t, { rules: '0', config: '0' }]));
    if (tenantIds.length === 0) return out;
    // Kept as SQL text: round-trip budgets recognise this background poll by it (test/support/round-trips.ts).
    const { rows } = await sql<{ tenant_id: string; rules_version: string; config_version: string }>`
      SELECT tenant_id, rules_version::text AS rules_version, config_version::text AS config_version FROM intent_tenant_config WHERE tenant_id = ANY(${tenantIds}::uuid[])`.execute(
      this.database.db,
    );
    for (const r of rows) out.set(r.tenant_id, { rules: r.rules_version, config: r.config_version });
    return out;
  }

  private async insertRule(tx: Db, tenantId: TenantId, fields: IntentRuleFields, embedding: StoredEmbedding | null): Promise<StoredIntentRule> {
    const row = await tx
      .insertInto('intent_rule')
      .values({ tenant_id: tenantId, ...ruleValues(fields) })
      .returning(RULE_COLUMNS)
      .executeTakeFirstOrThrow();
    const rule = toRule(row);
    if (embedding !== null) await this.writeEmbedding(tx, tenantId, rule.id, embedding);
    return rule;
  }

  private async writeEmbedding(tx: Db, tenantId: TenantId, ruleId: string, e: StoredEmbedding): Promise<void> {
    await sql`
      INSERT INTO intent_rule_embedding (tenant_id, rule_id, embedding_model, embedding_dim, example_count, vectors)
      VALUES (${tenantId}, ${ruleId}, ${e.model}, ${e.dim}, ${e.count}, ${e.vectors})
      ON CONFLICT ON CONSTRAINT uq_intent_rule_embedding_rule_model
      DO UPDATE SET embedding_dim = EXCLUDED.embedding_dim, example_count = EXCLUDED.example_count, vectors = EXCLUDED.vectors, created_at = EXCLUDED.created_at`.execute(
      tx,
    );
  }

  /** The tenant's rules version now ("0" before the first write). */
  async rulesVersion(tenantId: TenantId): Promise<string> {
    return (await this.versions([tenantId])).get(tenantId)?.rules ?? '0';
  }

  /**
   * Bumps the rules version; with `expected`, only from that version (a compare-and-set: a concurrent writer's
   * update waits for this row's lock and then sees the new version), else throws {@link RuleSetChangedError},
   * which rolls the caller's transaction back.
   */
  private async bumpRules(tx: Db, tenantId: TenantId, expected: string | null = null): Promise<void> {
    const { rows } = await sql<{ v: string }>`
      INSERT INTO intent_tenant_config (tenant_id, rules_version) VALUES (${tenantId}, 1)
      ON CONFLICT ON CONSTRAINT uq_intent_tenant_config_tenant
      DO UPDATE SET rules_version = intent_tenant_config.rules_version + 1, updated_at = EXCLUDED.updated_at
      WHERE ${expected}::bigint IS NULL OR intent_tenant_config.rules_version = ${expected}::bigint
      RETURNING rules_version::text AS v`.execute(tx);
    if (rows.length === 0) throw new RuleSetChangedError(tenantId);
  }
}
