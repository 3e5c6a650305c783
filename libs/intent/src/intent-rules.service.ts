import { Inject, Injectable, Logger } from '@nestjs/common';
import { invalidRequest, pageRequest, type Page, type TenantId } from '@arbiter/common';
import { JobsService, type JobName } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { AuditLog } from '@arbiter/tenancy';
import type { CreateIntentRuleDto, UpdateIntentRuleDto } from './dto/intent-rule.dto.js';
import { encodeVectors } from './intent-embeddings.js';
import { IntentErrorCode, IntentException } from './intent.exception.js';
import {
  IntentRepository,
  type AuditInTransaction,
  type EmbeddingSummary,
  type IntentRuleFields,
  type StoredEmbedding,
  type StoredIntentRule,
} from './intent.repository.js';
import { IntentRouterCache } from './intent-router.cache.js';
import { INTENT_LIMITS, type IntentRuleView } from './intent.types.js';
import { servedPatterns, validateIntentRuleDef, type RuleIssue } from './routing/index.js';
import { writeCheckIssues } from './rule-check/rule-set-outcome.js';

export const INTENT_REEMBED_JOB = 'intent.reembed' satisfies JobName;

/** The stored fields of a rule to create, with the defaults applied. */
export function toFields(dto: CreateIntentRuleDto): IntentRuleFields {
  return {
    intent: dto.intent.trim(),
    description: dto.description ?? null,
    keywords: dto.keywords ?? [],
    patterns: dto.patterns ?? [],
    semanticExamples: dto.semanticExamples ?? [],
    intentVector: dto.intentVector !== undefined && dto.intentVector !== null && dto.intentVector.length > 0 ? dto.intentVector : null,
    priority: dto.priority ?? 0,
    enabled: dto.enabled ?? true,
    reply: dto.reply ?? null,
    action: dto.action ?? 'knowledge',
    confidenceProfile: dto.confidenceProfile ?? 'search',
  };
}

export function toRuleView(rule: StoredIntentRule, embedding: EmbeddingSummary | undefined): IntentRuleView {
  return {
    id: rule.id,
    intent: rule.intent,
    description: rule.description,
    keywords: rule.keywords,
    patterns: rule.patterns,
    semanticExamples: rule.semanticExamples,
    intentVector: rule.intentVector,
    priority: rule.priority,
    enabled: rule.enabled,
    reply: rule.reply,
    action: rule.action,
    confidenceProfile: rule.confidenceProfile,
    exampleEmbeddings: embedding !== undefined ? { model: embedding.model, dimension: embedding.dim, count: embedding.count } : null,
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}

/**
 * Intent rule CRUD. Saving validates the rule with the routing core (RE2 patterns, non-empty rule,
 * `intentVector` dimension = the embedding provider's) and embeds its `semanticExamples` once with
 * `EMBEDDING_PROVIDER` (if the provider fails, the rule is saved and `intent.reembed` catches up).
 */
@Injectable()
export class IntentRulesService {
  private readonly logger = new Logger('IntentRules');

  constructor(
    private readonly repository: IntentRepository,
    private readonly cache: IntentRouterCache,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly jobs: JobsService,
    private readonly audit: AuditLog,
  ) {}

  /** The audit entry of a rule change, in the change's transaction (docs/http-edge.md "Audit log"). */
  private ruleAudit(tenantId: TenantId, action: string, summary: Record<string, unknown> = {}): AuditInTransaction<StoredIntentRule[]> {
    return async (tx, rules) => {
      if (rules.length === 1) {
        const rule = rules[0]!;
        await this.audit.record(tx, tenantId, {
          action,
          resourceType: 'intent_rule',
          resourceId: rule.id,
          label: rule.intent,
          summary: { enabled: rule.enabled, ...summary },
        });
        return;
      }
      await this.audit.record(tx, tenantId, {
        action,
        resourceType: 'intent_rule',
        label: `${rules.length} rules`,
        summary: { count: rules.length, intents: rules.slice(0, 50).map((r) => r.intent), ...summary },
      });
    };
  }

  async create(tenantId: TenantId, dto: CreateIntentRuleDto): Promise<IntentRuleView> {
    const fields = toFields(dto);
    this.throwIfInvalid([...this.issues(fields), ...(await this.checkRuleSet(tenantId, [fields], null, () => ''))]);
    if ((await this.repository.count(tenantId)) >= INTENT_LIMITS.rulesPerTenant) {
      throw new IntentException(IntentErrorCode.RULE_LIMIT_REACHED, `at most ${INTENT_LIMITS.rulesPerTenant} rules per tenant`);
    }
    const embedding = await this.embed(tenantId, fields.semanticExamples);
    const rule = await this.repository.insert(tenantId, fields, embedding, this.ruleAudit(tenantId, 'create'));
    this.cache.invalidate(tenantId);
    return toRuleView(rule, summary(embedding));
  }

  /**
   * Creates many rules at once, all or none: every rule is validated first (a 400 names `rules[i].<field>`),
   * then they are written in one transaction with one version bump, so the router reloads and retrains once
   * instead of once per rule (loading a whole intent set, e.g. 150 intents, right before routing).
   */
  async createMany(tenantId: TenantId, dtos: readonly CreateIntentRuleDto[]): Promise<IntentRuleView[]> {
    const all = dtos.map(toFields);
    const problems: { field: string; errors: string[] }[] = [];
    all.forEach((fields, i) => {
      for (const issue of this.issues(fields)) problems.push({ field: `rules[${i}].${issue.field}`, errors: [issue.message] });
    });
    for (const issue of await this.checkRuleSet(tenantId, all, null, (i) => `rules[${i}].`)) problems.push({ field: issue.field, errors: [issue.message] });
    if (problems.length) throw invalidRequest(problems);
    if ((await this.repository.count(tenantId)) + all.length > INTENT_LIMITS.rulesPerTenant) {
      throw new IntentException(IntentErrorCode.RULE_LIMIT_REACHED, `at most ${INTENT_LIMITS.rulesPerTenant} rules per tenant`);
    }
    const items: { fields: IntentRuleFields; embedding: StoredEmbedding | null }[] = [];
    for (const fields of all) items.push({ fields, embedding: await this.embed(tenantId, fields.semanticExamples) });
    const rules = await this.repository.insertMany(tenantId, items, this.ruleAudit(tenantId, 'create'));
    this.cache.invalidate(tenantId);
    return rules.map((rule, i) => toRuleView(rule, summary(items[i]!.embedding)));
  }

  async get(tenantId: TenantId, id: string): Promise<IntentRuleView> {
    const rule = await this.repository.find(tenantId, id);
    if (rule === null) throw new IntentException(IntentErrorCode.RULE_NOT_FOUND, id);
    const summaries = await this.repository.embeddingSummaries(tenantId, [id], this.provider.id);
    return toRuleView(rule, summaries.get(id));
  }

  async list(tenantId: TenantId, query: { intent?: string; cursor?: string; limit?: number }): Promise<Page<IntentRuleView>> {
    const page = await this.repository.list(tenantId, query.intent !== undefined ? { intent: query.intent } : {}, pageRequest(query));
    const summaries = await this.repository.embeddingSummaries(
      tenantId,
      page.items.map((r) => r.id),
      this.provider.id,
    );
    return { items: page.items.map((r) => toRuleView(r, summaries.get(r.id))), nextCursor: page.nextCursor };
  }

  async update(tenantId: TenantId, id: string, dto: UpdateIntentRuleDto): Promise<IntentRuleView> {
    const current = await this.repository.find(tenantId, id);
    if (current === null) throw new IntentException(IntentErrorCode.RULE_NOT_FOUND, id);
    const fields: IntentRuleFields = {
      intent: dto.intent !== undefined ? dto.intent.trim() : current.intent,
      description: dto.description !== undefined ? dto.description : current.description,
      keywords: dto.keywords ?? current.keywords,
      patterns: dto.patterns ?? current.patterns,
      semanticExamples: dto.semanticExamples ?? current.semanticExamples,
      intentVector:
        dto.intentVector === undefined ? current.intentVector : dto.intentVector === null || dto.intentVector.length === 0 ? null : dto.intentVector,
      priority: dto.priority ?? current.priority,
      enabled: dto.enabled ?? current.enabled,
      reply: dto.reply !== undefined ? dto.reply : current.reply,
      action: dto.action ?? current.action,
      confidenceProfile: dto.confidenceProfile ?? current.confidenceProfile,
    };
    // A disabled rule's unchanged patterns are not served and were checked when written: leaving them out lets a
    // tenant disable the rule that breaks its set (the fix path) while the rest must still compile.
    const patternsChanged = JSON.stringify(fields.patterns) !== JSON.stringify(current.patterns);
    const checked = fields.enabled || patternsChanged ? fields : { ...fields, patterns: [] };
    this.throwIfInvalid([...this.issues(fields), ...(await this.checkRuleSet(tenantId, [checked], id, () => ''))]);
    const examplesChanged = JSON.stringify(fields.semanticExamples) !== JSON.stringify(current.semanticExamples);
    const embedding = examplesChanged ? await this.embed(tenantId, fields.semanticExamples) : 'keep';
    const changed = (Object.keys(fields) as (keyof IntentRuleFields)[]).filter((k) => JSON.stringify(fields[k]) !== JSON.stringify(current[k]));
    const rule = await this.repository.update(tenantId, id, fields, embedding, this.ruleAudit(tenantId, 'update', { changed }));
    if (rule === null) throw new IntentException(IntentErrorCode.RULE_NOT_FOUND, id);
    this.cache.invalidate(tenantId);
    const summaries = await this.repository.embeddingSummaries(tenantId, [id], this.provider.id);
    return toRuleView(rule, summaries.get(id));
  }

  async delete(tenantId: TenantId, id: string): Promise<void> {
    if (!(await this.repository.delete(tenantId, id, this.ruleAudit(tenantId, 'delete')))) throw new IntentException(IntentErrorCode.RULE_NOT_FOUND, id);
    this.cache.invalidate(tenantId);
  }

  /** Rules `reembed` still has to do after `afterId` (one count). */
  remainingReembed(tenantId: TenantId, afterId: string | null): Promise<number> {
    return this.repository.countRulesWithStaleEmbeddings(tenantId, this.provider.id, afterId);
  }

  /** Re-embeds the tenant's rules lacking embeddings in the current provider's space (the `intent.reembed` job). */
  async reembed(
    tenantId: TenantId,
    afterId: string | null,
    batchSize: number,
    progress?: (processed: number, checkpoint: string) => Promise<void>,
  ): Promise<number> {
    let cursor = afterId;
    let total = 0;
    for (;;) {
      const rules = await this.repository.rulesWithStaleEmbeddings(tenantId, this.provider.id, cursor, batchSize);
      if (rules.length === 0) break;
      for (const rule of rules) {
        const vectors = await this.provider.embedDocuments(rule.semanticExamples);
        await this.repository.replaceEmbeddingIfCurrent(tenantId, rule.id, rule.semanticExamples, this.pack(vectors));
      }
      total += rules.length;
      cursor = rules[rules.length - 1].id;
      if (progress !== undefined) await progress(rules.length, cursor);
    }
    const dropped = await this.repository.finishReembed(tenantId, this.provider.id);
    this.cache.invalidate(tenantId);
    this.logger.log({ msg: 'intent examples re-embedded', tenantId, rules: total, droppedRows: dropped, space: this.provider.id });
    return total;
  }

  /** The rule's own issues; its patterns are compiled with the tenant's set by {@link checkRuleSet}. */
  private issues(fields: IntentRuleFields): RuleIssue[] {
    return validateIntentRuleDef(
      {
        intent: fields.intent,
        keywords: fields.keywords,
        patterns: fields.patterns,
        semanticExamples: fields.semanticExamples,
        ...(fields.intentVector !== null ? { intentVector: fields.intentVector } : {}),
      },
      { vectorDimension: this.provider.dimension, compilePatterns: false },
    );
  }

  /**
   * Compiles the tenant's pattern set as it would be served after the write — its stored enabled rules (less
   * `replacing`, the rule being edited) followed by the written rules' patterns — on the check thread (bounded
   * by the RE2 program-size limit and a time limit, never on this thread), and returns the issues naming the
   * rule and the pattern (`<prefix>patterns[j]`; a stored rule as `rules[<id>].patterns[j]`). New patterns
   * are checked even when their rule is disabled, so enabling it later cannot meet a pattern that does not
   * compile. Two concurrent writes are each checked against the stored set without the other; if together
   * they exceed the limit, serving turns the regex stage off and logs it (libs/intent/src/routing/README.md "Regex rule sets").
   */
  private async checkRuleSet(
    tenantId: TenantId,
    written: readonly IntentRuleFields[],
    replacing: string | null,
    prefix: (i: number) => string,
  ): Promise<RuleIssue[]> {
    if (written.every((f) => f.patterns.length === 0)) return [];
    const stored = (await this.repository.all(tenantId)).filter((r) => r.id !== replacing);
    const refs = servedPatterns(stored);
    const writtenKey = (i: number): string => `written:${i}`;
    written.forEach((f, i) => f.patterns.forEach((source, index) => refs.push({ ruleId: writtenKey(i), index, source })));
    const outcome = await this.cache.ruleSets.check(tenantId, 'write', refs);
    const index = new Map(written.map((_, i) => [writtenKey(i), i]));
    return writeCheckIssues(
      outcome,
      (ruleId) => {
        const i = index.get(ruleId);
        return i === undefined ? null : prefix(i);
      },
      written.length === 1 ? `${prefix(0)}patterns` : 'rules',
    );
  }

  private throwIfInvalid(issues: RuleIssue[]): void {
    if (issues.length > 0) {
      throw new IntentException(IntentErrorCode.INVALID_RULE, issues.map((i) => `${i.field}: ${i.message}`).join('; '), {
        fields: [...new Set(issues.map((i) => i.field))],
        issues,
      });
    }
  }

  /** Embeds examples once at save time; on provider failure returns null and queues a re-embed. */
  private async embed(tenantId: TenantId, examples: string[]): Promise<StoredEmbedding | null> {
    if (examples.length === 0) return null;
    try {
      return this.pack(await this.provider.embedDocuments(examples));
    } catch (error) {
      this.logger.warn({
        msg: 'embedding intent examples failed; saved without, re-embed queued',
        tenantId,
        err: error instanceof Error ? error.message : String(error),
      });
      await this.jobs.enqueue(tenantId, INTENT_REEMBED_JOB, {}, { trigger: 'event' }).catch((e: unknown) => {
        this.logger.warn({ msg: 'could not queue intent re-embed', tenantId, err: e instanceof Error ? e.message : String(e) });
      });
      return null;
    }
  }

  private pack(vectors: number[][]): StoredEmbedding {
    const dim = this.provider.dimension;
    return { model: this.provider.id, dim, count: vectors.length, vectors: encodeVectors(vectors, dim) };
  }
}

function summary(e: StoredEmbedding | null): EmbeddingSummary | undefined {
  return e === null ? undefined : { model: e.model, dim: e.dim, count: e.count };
}
