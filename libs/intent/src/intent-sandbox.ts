import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors, invalidRequest, type FieldError, type TenantId } from '@arbiter/common';
import { EMBEDDING_PROVIDER, isHashingEmbedding, LlmService, type EmbeddingProvider } from '@arbiter/llm';
import { CreateIntentRuleDto } from './dto/intent-rule.dto.js';
import { IntentConfigService } from './intent-config.service.js';
import { ProviderTextEmbedder } from './intent-embeddings.js';
import { IntentRouterCache } from './intent-router.cache.js';
import { toFields } from './intent-rules.service.js';
import { INTENT_LIMITS } from './intent.types.js';
import { IntentRouter, servedPatterns, validateIntentRuleDef, type IntentConfig, type IntentRuleDef, type RouteResult } from './routing/index.js';
import { servingOptions, writeCheckIssues } from './rule-check/rule-set-outcome.js';

/** What a replay tries instead of the live routing: a config override and/or a whole draft rule set. */
export interface SandboxCandidate {
  config?: unknown;
  rules?: unknown;
}

/** A router for what-if routing: no decision is logged, no session written, the judge never called. */
export interface SandboxRouting {
  route(message: string): Promise<RouteResult>;
  config: IntentConfig;
  /** The live config version the candidate config was merged onto. */
  configVersion: string;
  /** The live rules version, or "draft" when a draft rule set replaced the rules. */
  rulesVersion: string;
  /** Whether the candidate config would consult the judge (it is not called in a sandbox). */
  judgeConfigured: boolean;
}

/**
 * What-if routing for replays (docs/learning.md "Replay"): the tenant's rules or a draft rule set, with the
 * tenant's config or a candidate override, judge off. `check` validates a candidate without compiling (the
 * request's 400s); `prepare` builds the router (in the job).
 */
@Injectable()
export class IntentSandbox {
  constructor(
    private readonly cache: IntentRouterCache,
    private readonly configs: IntentConfigService,
    private readonly llm: LlmService,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  /** 400 naming `config.<key>` or `rules[i].<field>` when the candidate is invalid; nothing else happens. */
  async check(tenantId: TenantId, candidate: SandboxCandidate): Promise<void> {
    if (candidate.config !== undefined) this.configs.resolve((await this.configs.versioned(tenantId)).config, candidate.config);
    if (candidate.rules !== undefined) await this.checkDraftPatterns(tenantId, this.draftRules(candidate.rules));
  }

  async prepare(tenantId: TenantId, candidate: SandboxCandidate): Promise<SandboxRouting> {
    const live = await this.configs.versioned(tenantId);
    const config = candidate.config !== undefined ? this.configs.resolve(live.config, candidate.config) : live.config;
    const routeConfig: IntentConfig = { ...config, llmJudgeEnabled: false };
    const judgeConfigured = config.llmJudgeEnabled && this.llm.enabled;
    if (candidate.rules === undefined) {
      const routing = await this.cache.get(tenantId);
      await routing.trained;
      return { route: (m) => routing.router.route(m, routeConfig), config, configVersion: live.version, rulesVersion: routing.versions.rules, judgeConfigured };
    }
    const defs = this.draftRules(candidate.rules);
    if (!isHashingEmbedding(this.provider.id)) {
      for (const def of defs) if (def.semanticExamples.length > 0) def.exampleVectors = await this.provider.embedDocuments(def.semanticExamples);
    }
    // The draft's pattern set is compiled on the check thread first, like the live rules (a draft that passed
    // `check` fits the limits; one that does not is replayed without the regex stage rather than compiled here).
    const served = servingOptions(await this.cache.ruleSets.check(tenantId, 'write', servedPatterns(defs)));
    const router = IntentRouter.compile(defs, {
      embedder: new ProviderTextEmbedder(this.provider),
      vectorDimension: this.provider.dimension,
      onInvalidPattern: 'skip',
      ...served,
    });
    // On the training threads like the live routers (never on the thread that serves requests); its own
    // queue key so it neither supersedes nor is superseded by the tenant's live training.
    const data = router.index.takeTrainingData();
    if (data !== null) {
      const outcome = await this.cache.trainer.train(`${tenantId}:sandbox:${randomUUID()}`, data);
      if (outcome.status === 'trained') router.index.installClassifier(outcome.result, 'draft');
      else router.index.classifierTrainingFailed();
    }
    return { route: (m) => router.route(m, routeConfig), config, configVersion: live.version, rulesVersion: 'draft', judgeConfigured };
  }

  /**
   * 400 naming `rules[i].patterns[j]` when the draft's whole pattern set (every draft rule's patterns, as a bulk
   * write checks them) does not compile within the limits, compiled on the check thread
   * (libs/intent/src/routing/README.md "Regex rule sets").
   */
  private async checkDraftPatterns(tenantId: TenantId, defs: IntentRuleDef[]): Promise<void> {
    const refs = defs.flatMap((d) => d.patterns.map((source, index) => ({ ruleId: d.id, index, source })));
    const ids = new Map(defs.map((d, i) => [d.id, i]));
    const issues = writeCheckIssues(
      await this.cache.ruleSets.check(tenantId, 'write', refs),
      (ruleId) => {
        const i = ids.get(ruleId);
        return i === undefined ? null : `rules[${i}].`;
      },
      'rules',
    );
    if (issues.length > 0) throw invalidRequest(issues.slice(0, 100).map((issue) => ({ field: issue.field, errors: [issue.message] })));
  }

  /** A draft rule set checked like `POST /admin/intent-rules/bulk` checks rules (every problem named). */
  private draftRules(raw: unknown): IntentRuleDef[] {
    if (!Array.isArray(raw)) throw invalidRequest([{ field: 'rules', errors: ['rules must be an array of intent rules (the whole draft set)'] }]);
    if (raw.length > INTENT_LIMITS.rulesPerTenant) {
      throw invalidRequest([{ field: 'rules', errors: [`rules must hold at most ${INTENT_LIMITS.rulesPerTenant} rules`] }]);
    }
    const problems: FieldError[] = [];
    const defs: IntentRuleDef[] = [];
    raw.forEach((item: unknown, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        problems.push({ field: `rules[${i}]`, errors: ['must be an intent rule object'] });
        return;
      }
      const dto = plainToInstance(CreateIntentRuleDto, item);
      const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } });
      if (errors.length > 0) {
        for (const e of flattenValidationErrors(errors)) problems.push({ field: `rules[${i}].${e.field}`, errors: e.errors });
        return;
      }
      const fields = toFields(dto);
      const issues = validateIntentRuleDef(
        {
          intent: fields.intent,
          keywords: fields.keywords,
          patterns: fields.patterns,
          semanticExamples: fields.semanticExamples,
          ...(fields.intentVector !== null ? { intentVector: fields.intentVector } : {}),
        },
        { vectorDimension: this.provider.dimension, compilePatterns: false },
      );
      for (const issue of issues) problems.push({ field: `rules[${i}].${issue.field}`, errors: [issue.message] });
      defs.push({
        id: `draft-${i}`,
        intent: fields.intent,
        keywords: fields.keywords,
        patterns: fields.patterns,
        semanticExamples: fields.semanticExamples,
        priority: fields.priority,
        enabled: fields.enabled,
        action: fields.action,
        confidenceProfile: fields.confidenceProfile,
        ...(fields.description !== null ? { description: fields.description } : {}),
        ...(fields.reply !== null ? { reply: fields.reply } : {}),
        ...(fields.intentVector !== null ? { intentVector: fields.intentVector } : {}),
      });
    });
    if (problems.length > 0) throw invalidRequest(problems.slice(0, 100));
    return defs;
  }
}
