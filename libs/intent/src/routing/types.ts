/** Pure types of the intent routing core (docs/spec/intent-routing.md). No Nest, no database. */

export type IntentAction = 'knowledge' | 'answer' | 'transfer';

/** One tenant intent rule as the routing core sees it (the entity maps onto this). */
export interface IntentRuleDef {
  id: string;
  intent: string;
  description?: string;
  keywords: string[];
  patterns: string[];
  semanticExamples: string[];
  /** Mode A: a dense, L2-normalised vector from the tenant's embedding provider. */
  intentVector?: number[];
  /**
   * Provider embeddings of `semanticExamples` (same order), computed once when the rule is saved.
   * Used for mode B when an embedder of that dimension is configured; without them mode B runs on
   * the built-in TF-IDF index (the `local` provider).
   */
  exampleVectors?: number[][];
  priority: number;
  enabled: boolean;
  reply?: string;
  action: IntentAction;
  /** Confidence profile used by the retrieval confidence (docs/spec/evaluation.md §2; default "search"). */
  confidenceProfile: string;
}

export type RuleMatchType = 'keyword' | 'regex';

export interface RuleMatchResult {
  ruleId: string;
  intent: string;
  matchType: RuleMatchType;
  /** The keyword or the text matched by the pattern. */
  matchedText: string;
  /** The pattern source (regex) or keyword as configured. */
  matchedBy: string;
  score: 1 | 0;
  durationMs: number;
}

/** `vector`: mode A; `examples`: mode B on the local TF-IDF index; `example_vectors`: mode B on provider embeddings. */
export type SemanticSource = 'vector' | 'examples' | 'example_vectors';

/** One semantic candidate, explainable: which source and which example produced it. */
export interface SemanticCandidate {
  intent: string;
  /** Clamped to [0, 1]. */
  score: number;
  source: SemanticSource;
  /** Rule that carries the intent vector / nearest example. */
  ruleId?: string;
  /** Text of the nearest training example (mode B). */
  nearestExample?: string;
  /** Cosine similarity to the nearest example (mode B). */
  nearestSimilarity?: number;
}

export type SemanticSkipReason =
  'disabled' | 'no_examples_or_vectors' | 'empty_message' | 'timeout' | 'embedding_failed' | 'dimension_mismatch' | 'no_embedder';

export interface SemanticMatchTrace {
  topCandidates: SemanticCandidate[];
  durationMs: number;
  skipped?: SemanticSkipReason;
  /** Aggregation actually used (`classifier` is served by `interim` until its first training, `centroid_knn` with a single intent). */
  aggregation?: string;
  /**
   * With `classifier`: the version of the rule set the serving classifier was trained on (the API uses
   * the tenant's rules version). After a rule edit it names the previous version until the retrained
   * classifier is swapped in.
   */
  classifierVersion?: string;
  /**
   * With `classifier`: how many intents the interim matcher scored by their examples because the serving
   * classifier was not trained on them as they are now (new or edited intents; all of them, with
   * `aggregation: 'interim'`, before the first classifier). libs/intent/src/routing/README.md "Edits live at once".
   */
  interimIntents?: number;
  error?: string;
}

export type JudgeTriggerReason = 'conflict' | 'gray_zone' | 'multi_intent';

export interface LlmJudgeTrace {
  triggered: boolean;
  triggerReason?: JudgeTriggerReason;
  /** Every trigger that held (the first one is `triggerReason`). */
  triggerReasons?: JudgeTriggerReason[];
  intent?: string;
  score?: number;
  durationMs?: number;
  tokens?: number;
  error?: string;
  /** Why the judge did not run although triggered (disabled, no client). */
  skipped?: 'disabled' | 'no_client';
}

/**
 * Decision reasons of today, in the docs/spec/intent-routing.md decision order; then `clarify_resolved`, which
 * only the chat gives: the user picked one of the intents a clarifying question offered (docs/chat-clients.md
 * "Clarification"; never an answer of `POST /ai/intent/route`).
 */
export const DECISION_REASONS = ['rule_high_confidence', 'semantic_override', 'no_match', 'llm_judge', 'fusion_fallback', 'clarify_resolved'] as const;
export type DecisionReason = (typeof DECISION_REASONS)[number];

/**
 * Step 4's fallback before 2026-11-30 ("the semantic top"). No longer produced, but still found in
 * stored route traces: readers of traces accept it.
 */
export type LegacyDecisionReason = 'semantic_fallback';

/** A decision reason as read back from a stored route trace. */
export type StoredDecisionReason = DecisionReason | LegacyDecisionReason;

/** Every decision reason a stored trace may carry: today's, then the legacy ones. */
export const STORED_DECISION_REASONS = [...DECISION_REASONS, 'semantic_fallback'] as const;

export interface FusionWeights {
  rule: number;
  semantic: number;
  llm: number;
}

export interface FusionTrace {
  /** Configured weights. */
  weights: FusionWeights;
  /** Weights renormalised over the paths that produced a result this request. */
  effectiveWeights: FusionWeights;
  finalConfidence: number;
  decisionReason: DecisionReason;
  /** The fused confidence the thresholds compared, when a calibration turned it into `finalConfidence`. */
  rawConfidence?: number;
}

export interface RouteCandidate {
  intent: string;
  confidence: number;
}

export interface RouteTrace {
  ruleMatch: RuleMatchResult | null;
  /**
   * Present only when the tenant's regex stage is off because its pattern set does not compile within the
   * limits (keywords still match): libs/intent/src/routing/README.md "Regex rule sets".
   */
  ruleStage?: { regex: 'disabled'; reason: string };
  semanticMatch: SemanticMatchTrace;
  llmJudge: LlmJudgeTrace;
  fusion: FusionTrace;
}

export interface RouteResult {
  finalIntent: string | null;
  ruleId: string | null;
  finalConfidence: number;
  decisionReason: DecisionReason;
  needClarify: boolean;
  candidates: RouteCandidate[];
  routeTrace: RouteTrace;
}
