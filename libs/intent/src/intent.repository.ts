import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Keyset, toPage, type KeysetRow, type Page, type PageRequest, type TenantId } from '@arbiter/common';
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

interface RuleRow {
  id: string;
  tenant_id: string;
  intent: string;
  description: string | null;
  keywords: string[];
  patterns: string[];
  semantic_examples: string[];
  intent_vector: number[] | null;
  priority: number;
  enabled: boolean;
  reply: string | null;
  action: IntentAction;
  confidence_profile: string;
  created_at: Date;
  updated_at: Date;
}

const RULE_COLUMNS =
  'id, tenant_id, intent, description, keywords, patterns, semantic_examples, intent_vector, priority, enabled, reply, action, confidence_profile, created_at, updated_at';

function toRule(r: RuleRow): StoredIntentRule {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    intent: r.intent,
    description: r.description,
    keywords: r.keywords,
    patterns: r.patterns,
    semanticExamples: r.semantic_examples,
    intentVector: r.intent_vector,
    priority: r.priority,
    enabled: r.enabled,
    reply: r.reply,
    action: r.action,
    confidenceProfile: r.confidence_profile,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

type Db = DataSource | EntityManager;

const RULE_KEYSET = new Keyset('created_at', 'id');

/** SQL of the intent module: rules, example embeddings, the tenant config override and cache versions. */
/** Writes the audit entry of a change inside the change's transaction (docs/http-edge.md "Audit log"). */
export type AuditInTransaction<T> = (manager: EntityManager, changed: T) => Promise<void>;

@Injectable()
export class IntentRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async find(tenantId: TenantId, id: string): Promise<StoredIntentRule | null> {
    const rows: RuleRow[] = await this.ds.query(`SELECT ${RULE_COLUMNS} FROM intent_rule WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return rows[0] ? toRule(rows[0]) : null;
  }

  /** Every rule of the tenant (enabled or not) in creation order, for compiling its router. */
  async all(tenantId: TenantId): Promise<StoredIntentRule[]> {
    const rows: RuleRow[] = await this.ds.query(`SELECT ${RULE_COLUMNS} FROM intent_rule WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId]);
    return rows.map(toRule);
  }

  async count(tenantId: TenantId): Promise<number> {
    const rows: { n: number }[] = await this.ds.query('SELECT count(*)::int AS n FROM intent_rule WHERE tenant_id = $1', [tenantId]);
    return rows[0]?.n ?? 0;
  }

  /** Newest first, keyset over (created_at, id) at the column's microsecond precision. */
  async list(tenantId: TenantId, filter: { intent?: string }, page: PageRequest): Promise<Page<StoredIntentRule>> {
    const params: unknown[] = [tenantId];
    let where = 'tenant_id = $1';
    if (filter.intent !== undefined) {
      params.push(filter.intent);
      where += ` AND intent = $${params.length}`;
    }
    const rows: (RuleRow & KeysetRow)[] = await this.ds.query(
      `SELECT ${RULE_COLUMNS}, ${RULE_KEYSET.columns} FROM intent_rule
        WHERE ${where} AND ${RULE_KEYSET.where(params, page.after)}
        ORDER BY ${RULE_KEYSET.orderBy} LIMIT ${RULE_KEYSET.limit(params, page.limit)}`,
      params,
    );
    return toPage(rows, page.limit, toRule);
  }

  /** Inserts a rule (and its example embeddings) and bumps the tenant's rules version, atomically. */
  async insert(
    tenantId: TenantId,
    fields: IntentRuleFields,
    embedding: StoredEmbedding | null,
    audit?: AuditInTransaction<StoredIntentRule[]>,
  ): Promise<StoredIntentRule> {
    return this.ds.transaction(async (m) => {
      const rows: RuleRow[] = await m.query(
        `INSERT INTO intent_rule (tenant_id, intent, description, keywords, patterns, semantic_examples, intent_vector, priority, enabled, reply, action, confidence_profile)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12)
         RETURNING ${RULE_COLUMNS}`,
        [tenantId, ...fieldParams(fields)],
      );
      const rule = toRule(rows[0]);
      if (embedding !== null) await this.writeEmbedding(m, tenantId, rule.id, embedding);
      await this.bumpRules(m, tenantId);
      await audit?.(m, [rule]);
      return rule;
    });
  }

  /** Inserts many rules in one transaction with one version bump (one router reload and retrain). */
  async insertMany(
    tenantId: TenantId,
    items: readonly { fields: IntentRuleFields; embedding: StoredEmbedding | null }[],
    audit?: AuditInTransaction<StoredIntentRule[]>,
  ): Promise<StoredIntentRule[]> {
    return this.ds.transaction(async (m) => {
      const rules: StoredIntentRule[] = [];
      for (const { fields, embedding } of items) {
        const rows: RuleRow[] = await m.query(
          `INSERT INTO intent_rule (tenant_id, intent, description, keywords, patterns, semantic_examples, intent_vector, priority, enabled, reply, action, confidence_profile)
           VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12)
           RETURNING ${RULE_COLUMNS}`,
          [tenantId, ...fieldParams(fields)],
        );
        const rule = toRule(rows[0]);
        if (embedding !== null) await this.writeEmbedding(m, tenantId, rule.id, embedding);
        rules.push(rule);
      }
      await this.bumpRules(m, tenantId);
      await audit?.(m, rules);
      return rules;
    });
  }

  /**
   * Replaces a rule's fields; `embedding`: `keep` leaves the stored embeddings alone, null deletes them,
   * a value replaces them (all spaces). Returns null when the rule is not the tenant's.
   */
  async update(
    tenantId: TenantId,
    id: string,
    fields: IntentRuleFields,
    embedding: StoredEmbedding | null | 'keep',
    audit?: AuditInTransaction<StoredIntentRule[]>,
  ): Promise<StoredIntentRule | null> {
    return this.ds.transaction(async (m) => {
      const rows: RuleRow[] = await m.query(
        `UPDATE intent_rule SET intent = $3, description = $4, keywords = $5::jsonb, patterns = $6::jsonb, semantic_examples = $7::jsonb,
           intent_vector = $8::jsonb, priority = $9, enabled = $10, reply = $11, action = $12, confidence_profile = $13, updated_at = now()
         WHERE tenant_id = $1 AND id = $2
         RETURNING ${RULE_COLUMNS}`,
        [tenantId, id, ...fieldParams(fields)],
      );
      // node-postgres returns [rows, affected] for UPDATE ... RETURNING through TypeORM.
      const updated = (Array.isArray(rows[0]) ? (rows[0] as unknown as RuleRow[]) : rows)[0];
      if (updated === undefined) return null;
      if (embedding !== 'keep') {
        await m.query('DELETE FROM intent_rule_embedding WHERE tenant_id = $1 AND rule_id = $2', [tenantId, id]);
        if (embedding !== null) await this.writeEmbedding(m, tenantId, id, embedding);
      }
      await this.bumpRules(m, tenantId);
      const rule = toRule(updated);
      await audit?.(m, [rule]);
      return rule;
    });
  }

  async delete(tenantId: TenantId, id: string, audit?: AuditInTransaction<StoredIntentRule[]>): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const rows: RuleRow[] = await m.query(`SELECT ${RULE_COLUMNS} FROM intent_rule WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      const res: [unknown[], number] = await m.query('DELETE FROM intent_rule WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
      if (res[1] === 0) return false;
      await this.bumpRules(m, tenantId);
      await audit?.(m, rows.map(toRule));
      return true;
    });
  }

  /** Stored embeddings of the tenant's rules in `model`'s space, by rule id. */
  async embeddings(tenantId: TenantId, model: string): Promise<Map<string, StoredEmbedding>> {
    const rows: { rule_id: string; embedding_dim: number; example_count: number; vectors: Buffer }[] = await this.ds.query(
      'SELECT rule_id, embedding_dim, example_count, vectors FROM intent_rule_embedding WHERE tenant_id = $1 AND embedding_model = $2',
      [tenantId, model],
    );
    return new Map(rows.map((r) => [r.rule_id, { model, dim: r.embedding_dim, count: r.example_count, vectors: r.vectors }]));
  }

  async embeddingSummaries(tenantId: TenantId, ruleIds: string[], model: string): Promise<Map<string, EmbeddingSummary>> {
    if (ruleIds.length === 0) return new Map();
    const rows: { rule_id: string; embedding_dim: number; example_count: number }[] = await this.ds.query(
      'SELECT rule_id, embedding_dim, example_count FROM intent_rule_embedding WHERE tenant_id = $1 AND embedding_model = $2 AND rule_id = ANY($3::uuid[])',
      [tenantId, model, ruleIds],
    );
    return new Map(rows.map((r) => [r.rule_id, { model, dim: r.embedding_dim, count: r.example_count }]));
  }

  /** Tenants having rules with examples but no embeddings (of the right count) in `model`'s space. */
  async tenantsWithStaleEmbeddings(model: string): Promise<string[]> {
    const rows: { tenant_id: string }[] = await this.ds.query(
      `SELECT DISTINCT r.tenant_id FROM intent_rule r
        WHERE jsonb_array_length(r.semantic_examples) > 0
          AND NOT EXISTS (SELECT 1 FROM intent_rule_embedding e
                           WHERE e.rule_id = r.id AND e.embedding_model = $1 AND e.example_count = jsonb_array_length(r.semantic_examples))`,
      [model],
    );
    return rows.map((r) => r.tenant_id);
  }

  /** A batch of the tenant's rules lacking `model` embeddings, by id after `afterId`. */
  async rulesWithStaleEmbeddings(tenantId: TenantId, model: string, afterId: string | null, limit: number): Promise<StoredIntentRule[]> {
    const rows: RuleRow[] = await this.ds.query(
      `SELECT ${RULE_COLUMNS} FROM intent_rule r
        WHERE r.tenant_id = $1 AND ($3::uuid IS NULL OR r.id > $3::uuid) AND jsonb_array_length(r.semantic_examples) > 0
          AND NOT EXISTS (SELECT 1 FROM intent_rule_embedding e
                           WHERE e.rule_id = r.id AND e.embedding_model = $2 AND e.example_count = jsonb_array_length(r.semantic_examples))
        ORDER BY r.id LIMIT $4`,
      [tenantId, model, afterId, limit],
    );
    return rows.map(toRule);
  }

  /** How many rules `rulesWithStaleEmbeddings` would still return after `afterId` (the re-embed job's progress total). */
  async countRulesWithStaleEmbeddings(tenantId: TenantId, model: string, afterId: string | null): Promise<number> {
    const rows: { n: number }[] = await this.ds.query(
      `SELECT count(*)::int AS n FROM intent_rule r
        WHERE r.tenant_id = $1 AND ($3::uuid IS NULL OR r.id > $3::uuid) AND jsonb_array_length(r.semantic_examples) > 0
          AND NOT EXISTS (SELECT 1 FROM intent_rule_embedding e
                           WHERE e.tenant_id = r.tenant_id AND e.rule_id = r.id AND e.embedding_model = $2
                             AND e.example_count = jsonb_array_length(r.semantic_examples))`,
      [tenantId, model, afterId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Stores re-embedded examples unless the rule's examples changed meanwhile (then the save that
   * changed them wrote fresh embeddings). Returns whether it was written.
   */
  async replaceEmbeddingIfCurrent(tenantId: TenantId, ruleId: string, examples: string[], embedding: StoredEmbedding): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const rows: { id: string }[] = await m.query('SELECT id FROM intent_rule WHERE tenant_id = $1 AND id = $2 AND semantic_examples = $3::jsonb FOR UPDATE', [
        tenantId,
        ruleId,
        JSON.stringify(examples),
      ]);
      if (rows.length === 0) return false;
      await m.query('DELETE FROM intent_rule_embedding WHERE tenant_id = $1 AND rule_id = $2 AND embedding_model = $3', [tenantId, ruleId, embedding.model]);
      await this.writeEmbedding(m, tenantId, ruleId, embedding);
      return true;
    });
  }

  /** Drops embeddings of other spaces and bumps the rules version (replicas reload the vectors). */
  async finishReembed(tenantId: TenantId, model: string): Promise<number> {
    return this.ds.transaction(async (m) => {
      const res: [unknown[], number] = await m.query('DELETE FROM intent_rule_embedding WHERE tenant_id = $1 AND embedding_model <> $2', [tenantId, model]);
      await this.bumpRules(m, tenantId);
      return res[1];
    });
  }

  async getOverrides(tenantId: TenantId): Promise<IntentConfigOverride> {
    return (await this.getConfigState(tenantId)).overrides;
  }

  /** The stored override and its config version ("0" before the first write). */
  async getConfigState(tenantId: TenantId): Promise<{ overrides: IntentConfigOverride; version: string }> {
    const rows: { overrides: IntentConfigOverride; version: string }[] = await this.ds.query(
      'SELECT overrides, config_version::text AS version FROM intent_tenant_config WHERE tenant_id = $1',
      [tenantId],
    );
    return { overrides: rows[0]?.overrides ?? {}, version: rows[0]?.version ?? '0' };
  }

  /**
   * Stores the tenant override and bumps its config version, only if the version is still `expected`
   * (optimistic concurrency: two operators' edits never overwrite each other silently).
   * Returns the new version, or null when the stored version moved on.
   */
  async putOverrides(tenantId: TenantId, overrides: IntentConfigOverride, expected: string, audit?: AuditInTransaction<string>): Promise<string | null> {
    return this.ds.transaction(async (m) => {
      const version = await this.putOverridesOn(m, tenantId, overrides, expected);
      if (version !== null) await audit?.(m, version);
      return version;
    });
  }

  private async putOverridesOn(m: EntityManager, tenantId: TenantId, overrides: IntentConfigOverride, expected: string): Promise<string | null> {
    const json = JSON.stringify(overrides);
    if (expected === '0') {
      const inserted: { version: string }[] = await m.query(
        `INSERT INTO intent_tenant_config (tenant_id, overrides, config_version) VALUES ($1, $2::jsonb, 1)
         ON CONFLICT ON CONSTRAINT uq_intent_tenant_config_tenant
         DO UPDATE SET overrides = EXCLUDED.overrides, config_version = 1, updated_at = now() WHERE intent_tenant_config.config_version = 0
         RETURNING config_version::text AS version`,
        [tenantId, json],
      );
      return inserted[0]?.version ?? null;
    }
    // the driver answers an UPDATE with [rows, affected]
    const [rows]: [{ version: string }[], number] = await m.query(
      `UPDATE intent_tenant_config SET overrides = $2::jsonb, config_version = config_version + 1, updated_at = now()
       WHERE tenant_id = $1 AND config_version = $3::bigint
       RETURNING config_version::text AS version`,
      [tenantId, json, expected],
    );
    return rows[0]?.version ?? null;
  }

  /** Current cache versions of the given tenants (absent row → "0"/"0"). */
  async versions(tenantIds: string[]): Promise<Map<string, IntentVersions>> {
    const out = new Map<string, IntentVersions>(tenantIds.map((t) => [t, { rules: '0', config: '0' }]));
    if (tenantIds.length === 0) return out;
    const rows: { tenant_id: string; rules_version: string; config_version: string }[] = await this.ds.query(
      'SELECT tenant_id, rules_version::text AS rules_version, config_version::text AS config_version FROM intent_tenant_config WHERE tenant_id = ANY($1::uuid[])',
      [tenantIds],
    );
    for (const r of rows) out.set(r.tenant_id, { rules: r.rules_version, config: r.config_version });
    return out;
  }

  private async writeEmbedding(m: Db, tenantId: TenantId, ruleId: string, e: StoredEmbedding): Promise<void> {
    await m.query(
      `INSERT INTO intent_rule_embedding (tenant_id, rule_id, embedding_model, embedding_dim, example_count, vectors)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT ON CONSTRAINT uq_intent_rule_embedding_rule_model
       DO UPDATE SET embedding_dim = EXCLUDED.embedding_dim, example_count = EXCLUDED.example_count, vectors = EXCLUDED.vectors, created_at = now()`,
      [tenantId, ruleId, e.model, e.dim, e.count, e.vectors],
    );
  }

  private async bumpRules(m: Db, tenantId: TenantId): Promise<void> {
    await m.query(
      `INSERT INTO intent_tenant_config (tenant_id, rules_version) VALUES ($1, 1)
       ON CONFLICT ON CONSTRAINT uq_intent_tenant_config_tenant
       DO UPDATE SET rules_version = intent_tenant_config.rules_version + 1, updated_at = now()`,
      [tenantId],
    );
  }
}

function fieldParams(f: IntentRuleFields): unknown[] {
  return [
    f.intent,
    f.description,
    JSON.stringify(f.keywords),
    JSON.stringify(f.patterns),
    JSON.stringify(f.semanticExamples),
    f.intentVector === null ? null : JSON.stringify(f.intentVector),
    f.priority,
    f.enabled,
    f.reply,
    f.action,
    f.confidenceProfile,
  ];
}
