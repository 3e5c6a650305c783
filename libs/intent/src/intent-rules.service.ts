import { Inject, Injectable, Logger } from '@nestjs/common';
import { invalidRequest, pageRequest, type Page, type TenantId } from '@arbiter/common';
import { JobsService, type JobName, type JobSteps } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { AuditLog } from '@arbiter/tenancy';
import type { CreateIntentRuleDto, UpdateIntentRuleDto } from './dto/intent-rule.dto.js';
import { encodeVectors } from './intent-embeddings.js';
import { IntentErrorCode, IntentException } from './intent.exception.js';
import {
  IntentRepository,
  RuleSetChangedError,
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

/** Checks and writes a pattern write makes before answering 409 when other writes keep changing the rule set. */
const RULE_WRITE_ATTEMPTS = 5;

/** A write's check of the tenant's set: its issues, and the rules version checked (null: no pattern written, nothing to hold). */
interface RuleSetCheck {
  issues: RuleIssue[];
  rulesVersion: string | null;
}

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

  /** The tail of each tenant's pattern writes in this process (see {@link checkedWrite}). */
  private readonly writing = new Map<string, Promise<unknown>>();

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
    let embedding: StoredEmbedding | null | undefined;
    const rule = await this.checkedWrite(
      tenantId,
      () => this.checkOneRule(tenantId, fields, fields, null),
      async (rulesVersion) => {
        if ((await this.repository.count(tenantId)) >= INTENT_LIMITS.rulesPerTenant) {
          throw new IntentException(IntentErrorCode.RULE_LIMIT_REACHED, `at most ${INTENT_LIMITS.rulesPerTenant} rules per tenant`);
        }
        embedding ??= await this.embed(tenantId, fields.semanticExamples);
        return this.repository.insert(tenantId, fields, embedding, this.ruleAudit(tenantId, 'create'), rulesVersion);
      },
    );
    this.cache.invalidate(tenantId);
    return toRuleView(rule, summary(embedding ?? null));
  }

  /**
   * Creates many rules at once, all or none: every rule is validated first (a 400 names `rules[i].<field>`),
   * then they are written in one transaction with one version bump, so the router reloads and retrains once
   * instead of once per rule (loading a whole intent set, e.g. 150 intents, right before routing).
   */
  async createMany(tenantId: TenantId, dtos: readonly CreateIntentRuleDto[]): Promise<IntentRuleView[]> {
    const all = dtos.map(toFields);
    let items: { fields: IntentRuleFields; embedding: StoredEmbedding | null }[] | undefined;
    const rules = await this.checkedWrite(
      tenantId,
      async () => {
        const problems: { field: string; errors: string[] }[] = [];
        all.forEach((fields, i) => {
          for (const issue of this.issues(fields)) problems.push({ field: `rules[${i}].${issue.field}`, errors: [issue.message] });
        });
        const check = await this.checkRuleSet(tenantId, all, null, (i) => `rules[${i}].`);
        for (const issue of check.issues) problems.push({ field: issue.field, errors: [issue.message] });
        if (problems.length) throw invalidRequest(problems);
        return check.rulesVersion;
      },
      async (rulesVersion) => {
        if ((await this.repository.count(tenantId)) + all.length > INTENT_LIMITS.rulesPerTenant) {
          throw new IntentException(IntentErrorCode.RULE_LIMIT_REACHED, `at most ${INTENT_LIMITS.rulesPerTenant} rules per tenant`);
        }
        if (items === undefined) {
          items = [];
          for (const fields of all) items.push({ fields, embedding: await this.embed(tenantId, fields.semanticExamples) });
        }
        return this.repository.insertMany(tenantId, items, this.ruleAudit(tenantId, 'create'), rulesVersion);
      },
    );
    this.cache.invalidate(tenantId);
    return rules.map((rule, i) => toRuleView(rule, summary(items![i]!.embedding)));
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
    const examplesChanged = JSON.stringify(fields.semanticExamples) !== JSON.stringify(current.semanticExamples);
    let embedding: StoredEmbedding | null | 'keep' | undefined;
    const changed = (Object.keys(fields) as (keyof IntentRuleFields)[]).filter((k) => JSON.stringify(fields[k]) !== JSON.stringify(current[k]));
    const rule = await this.checkedWrite(
      tenantId,
      () => this.checkOneRule(tenantId, fields, checked, id),
      async (rulesVersion) => {
        embedding ??= examplesChanged ? await this.embed(tenantId, fields.semanticExamples) : 'keep';
        return this.repository.update(tenantId, id, fields, embedding, this.ruleAudit(tenantId, 'update', { changed }), rulesVersion);
      },
    );
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
  async reembed(tenantId: TenantId, afterId: string | null, batchSize: number, run: JobSteps): Promise<number> {
    const { step, progress } = run;
    let cursor = afterId;
    let total = 0;
    for (;;) {
      const rules = await step(() => this.repository.rulesWithStaleEmbeddings(tenantId, this.provider.id, cursor, batchSize));
      if (rules.length === 0) break;
      for (const rule of rules) {
        const vectors = await this.provider.embedDocuments(rule.semanticExamples);
        await step(() => this.repository.replaceEmbeddingIfCurrent(tenantId, rule.id, rule.semanticExamples, this.pack(vectors)));
      }
      total += rules.length;
      cursor = rules[rules.length - 1].id;
      if (progress !== undefined) await progress(rules.length, cursor);
    }
    const dropped = await step(() => this.repository.finishReembed(tenantId, this.provider.id));
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

  /** One rule's write check ({@link checkedWrite}'s first step): 400 for its own issues or the rule set's, else the rules version read. */
  private async checkOneRule(tenantId: TenantId, fields: IntentRuleFields, inRuleSet: IntentRuleFields, replacing: string | null): Promise<string | null> {
    const check = await this.checkRuleSet(tenantId, [inRuleSet], replacing, () => '');
    this.throwIfInvalid([...this.issues(fields), ...check.issues]);
    return check.rulesVersion;
  }

  /**
   * Compiles the tenant's pattern set as it would be served after the write — its stored enabled rules (less
   * `replacing`, the rule being edited) followed by the written rules' patterns — on the check thread (bounded
   * by the RE2 program-size limit and a time limit, never on this thread), and returns the issues naming the
   * rule and the pattern (`<prefix>patterns[j]`; a stored rule as `rules[<id>].patterns[j]`). New patterns
   * are checked even when their rule is disabled, so enabling it later cannot meet a pattern that does not
   * compile. The rules version read before the rules is returned for {@link checkedWrite}'s compare-and-set.
   */
  private async checkRuleSet(
    tenantId: TenantId,
    written: readonly IntentRuleFields[],
    replacing: string | null,
    prefix: (i: number) => string,
  ): Promise<RuleSetCheck> {
    if (written.every((f) => f.patterns.length === 0)) return { issues: [], rulesVersion: null };
    // The version first: rules read after it are at least that new, so a write that commits at this version
    // was checked with every rule the version counts (a newer rule read too only makes the write retry).
    const rulesVersion = await this.repository.rulesVersion(tenantId);
    const stored = (await this.repository.all(tenantId)).filter((r) => r.id !== replacing);
    const refs = servedPatterns(stored);
    const writtenKey = (i: number): string => `written:${i}`;
    written.forEach((f, i) => f.patterns.forEach((source, index) => refs.push({ ruleId: writtenKey(i), index, source })));
    const outcome = await this.cache.ruleSets.check(tenantId, 'write', refs);
    const index = new Map(written.map((_, i) => [writtenKey(i), i]));
    const issues = writeCheckIssues(
      outcome,
      (ruleId) => {
        const i = index.get(ruleId);
        return i === undefined ? null : prefix(i);
      },
      written.length === 1 ? `${prefix(0)}patterns` : 'rules',
    );
    return { issues, rulesVersion };
  }

  /**
   * A rule write that must commit on the rule set it was checked against (routing README "Regex rule sets"):
   * `check` throws the 400 or returns the rules version it checked (null when the write adds no pattern and
   * so cannot break the set); `write` commits only at that version. Writes of one tenant take turns in this
   * process, and a write that another process's write overtook is checked again with it, so two writes that each
   * fit but not together never both land: the second gets its 400. After RULE_WRITE_ATTEMPTS overtaken
   * attempts: 409.
   */
  private checkedWrite<T>(tenantId: TenantId, check: () => Promise<string | null>, write: (rulesVersion: string | null) => Promise<T>): Promise<T> {
    const attempt = async (): Promise<T> => {
      for (let n = 1; ; n++) {
        const rulesVersion = await check();
        try {
          return await write(rulesVersion);
        } catch (error) {
          if (!(error instanceof RuleSetChangedError)) throw error;
          if (n >= RULE_WRITE_ATTEMPTS)
            throw new IntentException(IntentErrorCode.RULE_SET_CHANGED, `other writes changed the rule set ${n} times during this one; retry it`);
        }
      }
    };
    const run = (this.writing.get(tenantId) ?? Promise.resolve()).then(attempt);
    const tail = run.catch(() => undefined);
    this.writing.set(tenantId, tail);
    void tail.then(() => {
      if (this.writing.get(tenantId) === tail) this.writing.delete(tenantId);
    });
    return run;
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
