import { DEFAULT_INTENT_CONFIG, mergeIntentConfig, type IntentConfig, type IntentConfigOverride } from '../config.js';
import type { IntentRuleDef, RuleMatchResult, SemanticCandidate } from '../types.js';

let seq = 0;

export function rule(partial: Partial<IntentRuleDef> & Pick<IntentRuleDef, 'intent'>): IntentRuleDef {
  return {
    id: partial.id ?? `r${++seq}`,
    keywords: [],
    patterns: [],
    semanticExamples: [],
    priority: 0,
    enabled: true,
    action: 'knowledge',
    confidenceProfile: 'search',
    ...partial,
  };
}

export function config(override: IntentConfigOverride = {}): IntentConfig {
  return mergeIntentConfig(DEFAULT_INTENT_CONFIG, override);
}

export function ruleHit(intent: string, ruleId = `rule-${intent}`): RuleMatchResult {
  return { ruleId, intent, matchType: 'keyword', matchedText: intent, matchedBy: intent, score: 1, durationMs: 0.01 };
}

/** Semantic candidates from `[intent, score]` pairs (best first as given). */
export function sem(...pairs: [string, number][]): SemanticCandidate[] {
  return pairs.map(([intent, score]) => ({ intent, score, source: 'examples', ruleId: `rule-${intent}` }));
}
