import type { IntentAction, IntentConfig, RouteResult } from './routing/index.js';

export const INTENT_ACTIONS = ['knowledge', 'answer', 'transfer'] as const satisfies readonly IntentAction[];

/** The retrieval confidence profiles (docs/spec/evaluation.md §2); the rule default is `search`. */
export const INTENT_CONFIDENCE_PROFILES = ['impact', 'dependency', 'search', 'documentation', 'complexity', 'overview', 'refactor', 'reference'] as const;
export type IntentConfidenceProfile = (typeof INTENT_CONFIDENCE_PROFILES)[number];

/** Input limits (HTTP validation). */
export const INTENT_LIMITS = {
  intentLength: 100,
  descriptionLength: 1000,
  keywords: 200,
  keywordLength: 200,
  patterns: 100,
  patternLength: 500,
  semanticExamples: 2000,
  exampleLength: 1000,
  vectorDimension: 4096,
  minPriority: -10_000,
  maxPriority: 10_000,
  replyLength: 4000,
  messageLength: 4000,
  evaluationExamples: 5000,
  rulesPerTenant: 20_000,
  /** Rules per bulk import request (one transaction, one retrain). */
  bulkRules: 500,
} as const;

/** A rule as served over HTTP. */
export interface IntentRuleView {
  id: string;
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
  /** Provider embeddings of `semanticExamples` in the current provider's space (null: none yet / no examples). */
  exampleEmbeddings: { model: string; dimension: number; count: number } | null;
  createdAt: string;
  updatedAt: string;
}

/** What the chat pipeline needs beside the RouteResult: the decided intent's action and reply. */
export interface RoutedIntent {
  result: RouteResult;
  /** The rule that carries the decision (the hit rule, else the highest-priority enabled rule of the intent). */
  rule: { id: string; intent: string; action: IntentAction; reply: string | null; confidenceProfile: string } | null;
  config: IntentConfig;
}
