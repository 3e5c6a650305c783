import { applyCalibration } from './calibration.js';
import type { IntentConfig } from './config.js';
import { decideAfterJudge, preDecide, type Decision } from './fusion-policy.js';
import { IntentIndex, type IntentIndexOptions } from './intent-index.js';
import { runJudge, type IntentJudgeClient, type JudgeCandidate } from './llm-judge.js';
import { RuleMatcher, type RuleMatcherOptions } from './rule-matcher.js';
import { SemanticMatcher, type TextEmbedder } from './semantic-matcher.js';
import type { ClassifierTrainOptions } from './softmax-classifier.js';
import type { IntentRuleDef, LlmJudgeTrace, RouteResult, RuleMatchResult, SemanticMatchTrace } from './types.js';

export interface IntentRouterOptions extends IntentIndexOptions, RuleMatcherOptions {
  judge?: IntentJudgeClient;
  embedder?: TextEmbedder;
}

/**
 * One tenant's compiled routing: rule matcher + semantic index over its enabled rules, plus the
 * judge and embedder clients. Immutable per rule set (build a new one when rules change and swap
 * the reference); the config is passed per call so it can change independently.
 */
export class IntentRouter {
  readonly ruleMatcher: RuleMatcher;
  readonly index: IntentIndex;
  private readonly semantic: SemanticMatcher;
  private readonly rulesById: Map<string, IntentRuleDef>;
  private readonly descriptions: Map<string, string>;

  private constructor(
    rules: readonly IntentRuleDef[],
    private readonly opts: IntentRouterOptions,
  ) {
    this.ruleMatcher = RuleMatcher.compile(rules, opts);
    this.index = IntentIndex.build(rules, { ...opts, vectorDimension: opts.vectorDimension ?? opts.embedder?.dimension });
    this.semantic = new SemanticMatcher(this.index, opts.embedder);
    this.rulesById = new Map(rules.map((r) => [r.id, r]));
    this.descriptions = new Map();
    for (const r of rules) {
      if (r.enabled && r.description !== undefined && r.description.trim() !== '' && !this.descriptions.has(r.intent)) {
        this.descriptions.set(r.intent, r.description);
      }
    }
  }

  static compile(rules: readonly IntentRuleDef[], opts: IntentRouterOptions = {}): IntentRouter {
    return new IntentRouter(rules, opts);
  }

  rule(id: string): IntentRuleDef | undefined {
    return this.rulesById.get(id);
  }

  /** Trains the tenant classifier in the background-friendly way (see `IntentIndex.trainClassifier`). */
  trainClassifier(opts?: ClassifierTrainOptions): Promise<void> {
    return this.index.trainClassifier(opts);
  }

  async route(message: string, cfg: IntentConfig): Promise<RouteResult> {
    const semanticPromise = this.runSemantic(message, cfg);
    const ruleMatch = this.ruleMatcher.match(message);
    const semanticMatch = await semanticPromise;
    const pre = preDecide({ rule: ruleMatch, semantic: semanticMatch.topCandidates }, cfg);
    if (pre.stage === 'decided') {
      return this.result(pre.decision, ruleMatch, semanticMatch, { triggered: false }, cfg);
    }
    const paths = { rule: ruleMatch, semantic: semanticMatch.topCandidates };
    if (pre.triggers.length === 0) {
      return this.result(decideAfterJudge(paths, null, cfg), ruleMatch, semanticMatch, { triggered: false }, cfg);
    }
    const judgeTrace: LlmJudgeTrace = { triggered: true, triggerReason: pre.triggers[0], triggerReasons: pre.triggers };
    const client = this.opts.judge;
    if (!cfg.llmJudgeEnabled || client === undefined) {
      judgeTrace.skipped = cfg.llmJudgeEnabled ? 'no_client' : 'disabled';
      return this.result(decideAfterJudge(paths, null, cfg), ruleMatch, semanticMatch, judgeTrace, cfg);
    }
    const outcome = await runJudge(client, message, this.judgeCandidates(ruleMatch, semanticMatch), cfg.llmJudgeTimeoutMs);
    judgeTrace.durationMs = outcome.durationMs;
    if (!outcome.ok) {
      judgeTrace.error = outcome.error;
      return this.result(decideAfterJudge(paths, null, cfg), ruleMatch, semanticMatch, judgeTrace, cfg);
    }
    judgeTrace.intent = outcome.intent;
    judgeTrace.score = outcome.confidence;
    if (outcome.tokens !== undefined) judgeTrace.tokens = outcome.tokens;
    const decision = decideAfterJudge(paths, { intent: outcome.intent, confidence: outcome.confidence }, cfg);
    return this.result(decision, ruleMatch, semanticMatch, judgeTrace, cfg);
  }

  private judgeCandidates(rule: RuleMatchResult | null, semantic: SemanticMatchTrace): JudgeCandidate[] {
    const intents = [...new Set([...(rule !== null ? [rule.intent] : []), ...semantic.topCandidates.map((c) => c.intent)])];
    return intents.map((intent) => {
      const description = this.descriptions.get(intent);
      return description !== undefined ? { intent, description } : { intent };
    });
  }

  /**
   * Semantic path with `semanticMatcherTimeoutMs`: the budget bounds how long routing waits for it (a remote embedder's
   * answer arriving later is discarded, `skipped: timeout`). A result that has arrived is used whatever its duration:
   * the built-in path computes on this thread, so once it returns its time is spent, and discarding it would only turn
   * a pause of the machine (a garbage collection, a starved core) into a miss (libs/intent/src/routing/README.md "Semantic budget").
   */
  private async runSemantic(message: string, cfg: IntentConfig): Promise<SemanticMatchTrace> {
    if (!cfg.semanticMatcherEnabled) return { topCandidates: [], durationMs: 0, skipped: 'disabled' };
    const start = performance.now();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<SemanticMatchTrace>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ topCandidates: [], durationMs: performance.now() - start, skipped: 'timeout' });
      }, cfg.semanticMatcherTimeoutMs);
    });
    try {
      return await Promise.race([
        this.semantic.match(message, {
          topK: cfg.semanticTopK,
          aggregation: cfg.semanticAggregation,
          exampleK: cfg.semanticExampleK,
          signal: controller.signal,
        }),
        timeout,
      ]);
    } catch (e) {
      return {
        topCandidates: [],
        durationMs: performance.now() - start,
        skipped: 'embedding_failed',
        error: e instanceof Error ? e.message : String(e),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  private result(d: Decision, ruleMatch: RuleMatchResult | null, semanticMatch: SemanticMatchTrace, llmJudge: LlmJudgeTrace, cfg: IntentConfig): RouteResult {
    // Calibrated: the probability that the named intent is right (docs/learning.md); a no_match keeps
    // its best fused score, which is not a probability of anything being right.
    const calibration = d.finalIntent !== null ? cfg.calibration : null;
    const finalConfidence = calibration !== null ? applyCalibration(calibration, d.finalConfidence) : d.finalConfidence;
    return {
      finalIntent: d.finalIntent,
      ruleId: d.ruleId,
      finalConfidence,
      decisionReason: d.decisionReason,
      needClarify: d.needClarify,
      candidates: d.candidates,
      routeTrace: {
        ruleMatch,
        ...(this.ruleMatcher.regexDisabled !== null ? { ruleStage: { regex: 'disabled' as const, reason: this.ruleMatcher.regexDisabled } } : {}),
        semanticMatch,
        llmJudge,
        fusion: {
          weights: { ...cfg.weights },
          effectiveWeights: d.effectiveWeights,
          finalConfidence,
          decisionReason: d.decisionReason,
          ...(calibration !== null ? { rawConfidence: d.finalConfidence } : {}),
        },
      },
    };
  }
}
