import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PeriodicPoll, type TenantId } from '@arbiter/common';
import { EMBEDDING_PROVIDER, isHashingEmbedding, LlmService, type EmbeddingProvider } from '@arbiter/llm';
import { ClassifierTrainer } from './classifier-trainer.js';
import { decodeVectors, ProviderTextEmbedder } from './intent-embeddings.js';
import { IntentMetrics } from './intent.metrics.js';
import { trainingStatus, type IntentStatus } from './intent-status.js';
import { trainingSteps } from './training/training-job.js';
import { IntentRepository, type IntentVersions, type StoredEmbedding, type StoredIntentRule } from './intent.repository.js';
import { LlmJudgeClient } from './llm-judge.client.js';
import { TrainingTimeoutError } from './training/training-queue.js';
import { RuleSetChecker, type RuleSetCheckOutcome } from './rule-check/rule-set-checker.js';
import { servingOptions } from './rule-check/rule-set-outcome.js';
import { DEFAULT_INTENT_CONFIG, IntentRouter, mergeIntentConfig, servedPatterns, type IntentConfig, type IntentRuleDef } from './routing/index.js';

/** One tenant's compiled routing state, swapped as a whole when its rules or config change. */
export interface TenantRouting {
  router: IntentRouter;
  config: IntentConfig;
  rules: StoredIntentRule[];
  /** Enabled rule carrying each intent's action/reply: highest priority, then the oldest. */
  ruleForIntent: Map<string, StoredIntentRule>;
  ruleById: Map<string, StoredIntentRule>;
  versions: IntentVersions;
  /**
   * Settles when the background classifier training (worker thread) has ended: trained and swapped in,
   * superseded by a newer rule set's, cancelled at shutdown, or failed (logged). Never rejects.
   */
  trained: Promise<void>;
}

/** How often replicas compare their cached versions with the database (cross-replica invalidation). */
export const INTENT_CACHE_POLL_MS = 250;
/**
 * A serve-time check that hit its time limit (or could not run) is not cached: the tenant serves without the
 * regex stage and its set is checked again after this long (once per interval, never per request), so an
 * overloaded moment does not turn its regex stage off for good. libs/intent/src/routing/README.md "Regex rule sets".
 */
export const INTENT_RULE_SET_RECHECK_MS = 60_000;
/** Tenants kept compiled in memory (least recently used evicted). */
export const INTENT_CACHE_MAX_TENANTS = 500;

/** A training on its way: the router it trains for and the thread's shared progress counter (-1: not started). */
interface TrainingInFlight {
  router: IntentRouter;
  progress: Int32Array;
  steps: number;
}

/** Maps a stored rule onto the routing core's definition (provider example vectors when usable). */
export function toRuleDef(rule: StoredIntentRule, embedding: StoredEmbedding | undefined, dimension: number): IntentRuleDef {
  const def: IntentRuleDef = {
    id: rule.id,
    intent: rule.intent,
    keywords: rule.keywords,
    patterns: rule.patterns,
    semanticExamples: rule.semanticExamples,
    priority: rule.priority,
    enabled: rule.enabled,
    action: rule.action,
    confidenceProfile: rule.confidenceProfile,
  };
  if (rule.description !== null) def.description = rule.description;
  if (rule.reply !== null) def.reply = rule.reply;
  if (rule.intentVector !== null) def.intentVector = rule.intentVector;
  if (embedding !== undefined && embedding.count === rule.semanticExamples.length && embedding.dim === dimension && embedding.count > 0) {
    def.exampleVectors = decodeVectors(embedding.vectors, embedding.count, embedding.dim);
  }
  return def;
}

/**
 * Per-tenant in-memory cache of compiled routers (rules + semantic index + effective config).
 * Writes on this replica invalidate locally at once; other replicas notice within
 * {@link INTENT_CACHE_POLL_MS} by polling the per-tenant versions in `intent_tenant_config` (one
 * indexed query for all cached tenants; works identically on PostgreSQL and embedded PGlite, where
 * LISTEN/NOTIFY through the socket is not dependable). A reload happens in the background: requests
 * keep the previous router until the new one is compiled.
 *
 * The classifier of a newly compiled router trains on a worker thread ({@link ClassifierTrainer}); the
 * router serves at once — its rules, and the previous router's classifier for the intents it knows
 * (`IntentIndex.adoptClassifier`) or else `centroid_knn` — and the trained weights are swapped in when
 * they arrive. docs/hot-paths.md "Intent classifier training".
 */
@Injectable()
export class IntentRouterCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IntentRouterCache');
  private readonly entries = new Map<string, TenantRouting>();
  private readonly loading = new Map<string, Promise<TenantRouting>>();
  private readonly generation = new Map<string, number>();
  /** Entries dropped by a config-only change: their compiled router is reused if the rules version still matches. */
  private readonly reusable = new Map<string, TenantRouting>();
  /** Entries dropped by a rules change: the next compile serves their classifier until its own is trained. */
  private readonly carry = new Map<string, TenantRouting>();
  private readonly poller = new PeriodicPoll(
    () => this.poll(),
    INTENT_CACHE_POLL_MS,
    () => this.entries.size === 0,
  );
  /** The training threads (owned: started on first use, ended in onModuleDestroy). */
  readonly trainer = new ClassifierTrainer();
  /** The regex rule sets' compile thread (owned like the trainer); rule writes check through it too. */
  readonly ruleSets = new RuleSetChecker();
  /**
   * The last serve-time check per tenant and rules version: a set that does not compile is checked once per
   * version, never again per request or per reload of the same version (libs/intent/src/routing/README.md "Regex rule sets").
   */
  private readonly checks = new Map<string, { rules: string; outcome: RuleSetCheckOutcome }>();
  /** Tenants whose serve-time check timed out or failed: the timer of their next check. */
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  /** The training under way per tenant (for the status's progress). */
  private readonly inFlight = new Map<string, TrainingInFlight>();
  /** Per tenant, how long its last completed training took here (ms, submission to serving); bounded like the entries. */
  private readonly lastTrainingMs = new Map<string, number>();

  constructor(
    private readonly repository: IntentRepository,
    private readonly llm: LlmService,
    private readonly metrics: IntentMetrics,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  onApplicationBootstrap(): void {
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
    for (const timer of this.rechecks.values()) clearTimeout(timer);
    this.rechecks.clear();
    await Promise.allSettled([...this.loading.values()]);
    await this.trainer.close();
    await this.ruleSets.close();
  }

  async get(tenantId: TenantId): Promise<TenantRouting> {
    const entry = this.entries.get(tenantId);
    if (entry !== undefined) {
      // Refresh the LRU position.
      this.entries.delete(tenantId);
      this.entries.set(tenantId, entry);
      return entry;
    }
    return this.load(tenantId, 'miss', this.reusable.get(tenantId) ?? this.carry.get(tenantId));
  }

  /**
   * The tenant's routing status on this process (`GET /admin/intent/status`): compiles its router first when
   * this process has none for the stored rules (as a route would), which also starts the training.
   */
  async status(tenantId: TenantId): Promise<IntentStatus> {
    const routing = await this.get(tenantId);
    // read after the router: rules written meanwhile show as `queued`, never as an idle older version
    const stored = (await this.repository.versions([tenantId])).get(tenantId)?.rules ?? '0';
    const index = routing.router.index;
    const flight = this.inFlight.get(tenantId);
    const training = flight !== undefined && flight.router === routing.router ? flight : undefined;
    return {
      rulesVersion: stored,
      classifierVersion: index.classifierVersion,
      training: trainingStatus({
        storedRules: stored,
        servedRules: routing.versions.rules,
        classifier: index.classifierState,
        seen: training !== undefined ? Atomics.load(training.progress, 0) : null,
        steps: training?.steps ?? 0,
      }),
      lastTrainingMs: this.lastTrainingMs.get(tenantId) ?? null,
      interimIntents: index.interimIntentCount,
    };
  }

  /**
   * Drops this replica's compiled state of the tenant (after a write here); the next request reloads.
   * `config`: only the config changed — the compiled router (and its trained classifier) is reused
   * when the rules version is unchanged.
   */
  invalidate(tenantId: TenantId, what: 'rules' | 'config' = 'rules'): void {
    this.generation.set(tenantId, (this.generation.get(tenantId) ?? 0) + 1);
    const entry = this.entries.get(tenantId) ?? this.reusable.get(tenantId) ?? this.carry.get(tenantId);
    if (what === 'config' && entry !== undefined) this.reusable.set(tenantId, entry);
    else {
      this.reusable.delete(tenantId);
      if (entry !== undefined) this.carry.set(tenantId, entry);
    }
    this.entries.delete(tenantId);
    this.loading.delete(tenantId);
  }

  /** `recompile`: compile even when the rules version is the previous entry's (a re-check after a timed-out one). */
  private load(tenantId: string, cause: 'miss' | 'rules' | 'config', previous: TenantRouting | undefined, recompile = false): Promise<TenantRouting> {
    const pending = this.loading.get(tenantId);
    if (pending !== undefined) return pending;
    const gen = this.generation.get(tenantId) ?? 0;
    const promise = this.build(tenantId, previous, recompile)
      .then((entry) => {
        if ((this.generation.get(tenantId) ?? 0) === gen && !this.poller.stopped) {
          this.reusable.delete(tenantId);
          this.carry.delete(tenantId);
          this.entries.delete(tenantId);
          this.entries.set(tenantId, entry);
          this.evict();
          this.metrics.routerLoaded(cause);
        }
        return entry;
      })
      .finally(() => {
        if (this.loading.get(tenantId) === promise) this.loading.delete(tenantId);
      });
    this.loading.set(tenantId, promise);
    return promise;
  }

  private async build(tenantId: string, previous: TenantRouting | undefined, recompile = false): Promise<TenantRouting> {
    const t = tenantId as TenantId;
    // Versions first: a write racing this load bumps them again and the next poll reloads.
    const versions = (await this.repository.versions([tenantId])).get(tenantId) ?? { rules: '0', config: '0' };
    const config = mergeIntentConfig(DEFAULT_INTENT_CONFIG, await this.repository.getOverrides(t));
    if (previous !== undefined && previous.versions.rules === versions.rules && !recompile) {
      return { ...previous, config, versions };
    }
    const rules = await this.repository.all(t);
    // With the built-in `local` provider, mode B runs on the routing core's TF-IDF index (better and
    // cheaper than hashed dense vectors); remote providers' stored example vectors are used as well.
    const embeddings = isHashingEmbedding(this.provider.id) ? new Map<string, StoredEmbedding>() : await this.repository.embeddings(t, this.provider.id);
    const defs = rules.map((r) => toRuleDef(r, embeddings.get(r.id), this.provider.dimension));
    // The pattern set is compiled (or refused) on the check thread first, so this thread only compiles a set
    // proven to fit the program-size limit; one that does not is served without the regex stage.
    const served = servingOptions(await this.checkRules(tenantId, versions.rules, defs));
    const router = IntentRouter.compile(defs, {
      embedder: new ProviderTextEmbedder(this.provider),
      ...(this.llm.enabled ? { judge: new LlmJudgeClient(this.llm, tenantId) } : {}),
      onInvalidPattern: 'skip',
      vectorDimension: this.provider.dimension,
      ...served,
    });
    if (router.ruleMatcher.invalidPatterns.length > 0 || served.excludedPatterns !== undefined) {
      this.logger.warn({
        msg: 'stored patterns skipped (invalid)',
        tenantId,
        patterns: [...(served.excludedPatterns ?? [])],
        issues: router.ruleMatcher.invalidPatterns,
      });
    }
    if (router.ruleMatcher.regexDisabled !== null) {
      this.logger.warn({
        msg: 'intent regex stage disabled for this rule set',
        tenantId,
        rulesVersion: versions.rules,
        reason: router.ruleMatcher.regexDisabled,
      });
    }
    // Serve the previous classifier (intents it knows) until this rule set's own is trained.
    if (previous !== undefined) router.index.adoptClassifier(previous.router.index);
    const trained = this.train(tenantId, router, versions.rules);
    const ruleForIntent = new Map<string, StoredIntentRule>();
    for (const r of rules) {
      if (!r.enabled) continue;
      const current = ruleForIntent.get(r.intent);
      if (current === undefined || r.priority > current.priority) ruleForIntent.set(r.intent, r);
    }
    return { router, config, rules, ruleForIntent, ruleById: new Map(rules.map((r) => [r.id, r])), versions, trained };
  }

  /** The serve-time check of the tenant's enabled patterns, cached per rules version (a crash of the thread is not cached). */
  private async checkRules(tenantId: string, rulesVersion: string, defs: readonly IntentRuleDef[]): Promise<RuleSetCheckOutcome> {
    const cached = this.checks.get(tenantId);
    if (cached !== undefined && cached.rules === rulesVersion) return cached.outcome;
    const outcome = await this.ruleSets.check(tenantId, 'serve', servedPatterns(defs));
    if (outcome.status === 'timeout' || outcome.status === 'failed') this.scheduleRecheck(tenantId, rulesVersion);
    else {
      this.checks.delete(tenantId);
      this.checks.set(tenantId, { rules: rulesVersion, outcome });
      while (this.checks.size > INTENT_CACHE_MAX_TENANTS) {
        const oldest = this.checks.keys().next().value;
        if (oldest === undefined) break;
        this.checks.delete(oldest);
      }
    }
    return outcome;
  }

  /**
   * After {@link INTENT_RULE_SET_RECHECK_MS}, recompiles the tenant's router if it still serves this rules version
   * without the regex stage; requests keep the current router meanwhile (as on a poll-triggered reload).
   */
  private scheduleRecheck(tenantId: string, rulesVersion: string): void {
    if (this.rechecks.has(tenantId)) return;
    const timer = setTimeout(() => {
      this.rechecks.delete(tenantId);
      const entry = this.entries.get(tenantId);
      if (entry === undefined || entry.versions.rules !== rulesVersion || entry.router.ruleMatcher.regexDisabled === null || this.poller.stopped) return;
      this.load(tenantId, 'rules', entry, true).catch((error: unknown) => {
        this.logger.warn({
          msg: 'intent rule set re-check failed; serving the previous router',
          tenantId,
          err: error instanceof Error ? error.message : String(error),
        });
      });
    }, INTENT_RULE_SET_RECHECK_MS);
    timer.unref();
    this.rechecks.set(tenantId, timer);
  }

  /** Hands the router's examples to the training threads and swaps the weights in when they come back. */
  private train(tenantId: string, router: IntentRouter, rulesVersion: string): Promise<void> {
    const data = router.index.takeTrainingData();
    if (data === null) return Promise.resolve();
    const started = performance.now();
    const flight: TrainingInFlight = { router, progress: new Int32Array(new SharedArrayBuffer(4)).fill(-1), steps: trainingSteps(data) };
    this.inFlight.set(tenantId, flight);
    return this.trainer
      .train(tenantId, data, flight.progress)
      .then(
        (outcome) => {
          if (outcome.status !== 'trained') {
            router.index.classifierTrainingFailed();
            this.metrics.classifierTraining(outcome.status);
            return;
          }
          try {
            router.index.installClassifier(outcome.result, rulesVersion);
            const ms = performance.now() - started;
            this.metrics.classifierTraining('trained', ms / 1000);
            this.recordTrainingMs(tenantId, Math.round(ms));
          } catch (error) {
            this.trainingFailed(tenantId, router, error);
          }
        },
        (error: unknown) => this.trainingFailed(tenantId, router, error),
      )
      .finally(() => {
        if (this.inFlight.get(tenantId) === flight) this.inFlight.delete(tenantId);
      });
  }

  private recordTrainingMs(tenantId: string, ms: number): void {
    this.lastTrainingMs.delete(tenantId);
    this.lastTrainingMs.set(tenantId, ms);
    while (this.lastTrainingMs.size > INTENT_CACHE_MAX_TENANTS) {
      const oldest = this.lastTrainingMs.keys().next().value;
      if (oldest === undefined) break;
      this.lastTrainingMs.delete(oldest);
    }
  }

  private trainingFailed(tenantId: string, router: IntentRouter, error: unknown): void {
    router.index.classifierTrainingFailed();
    this.metrics.classifierTraining(error instanceof TrainingTimeoutError ? 'timeout' : 'failed');
    this.logger.warn({
      msg: `intent classifier training failed; ${router.index.classifierCarried ? "the previous rules' classifier" : 'the interim matcher'} serves`,
      tenantId,
      err: error instanceof Error ? error.message : String(error),
    });
  }

  private async poll(): Promise<void> {
    const tenants = [...this.entries.keys()];
    let current: Map<string, IntentVersions>;
    try {
      current = await this.repository.versions(tenants);
    } catch (error) {
      this.logger.warn({ msg: 'intent cache version poll failed', err: error instanceof Error ? error.message : String(error) });
      return;
    }
    for (const tenantId of tenants) {
      const entry = this.entries.get(tenantId);
      const v = current.get(tenantId);
      if (entry === undefined || v === undefined) continue;
      if (entry.versions.rules === v.rules && entry.versions.config === v.config) continue;
      const cause = entry.versions.rules !== v.rules ? 'rules' : 'config';
      this.load(tenantId, cause, entry).catch((error: unknown) => {
        this.logger.warn({
          msg: 'intent router reload failed; serving the previous one',
          tenantId,
          err: error instanceof Error ? error.message : String(error),
        });
      });
    }
  }

  private evict(): void {
    while (this.entries.size > INTENT_CACHE_MAX_TENANTS) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
