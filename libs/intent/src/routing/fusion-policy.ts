import type { IntentConfig } from './config.js';
import { isMultiIntent, judgeTriggers } from './llm-judge.js';
import type { DecisionReason, FusionWeights, JudgeTriggerReason, RouteCandidate, RuleMatchResult, SemanticCandidate } from './types.js';

export interface FusionPaths {
  rule: RuleMatchResult | null;
  /** Semantic candidates, best first; the path produced a result when non-empty. */
  semantic: readonly SemanticCandidate[];
  /** The judge's answer when it was called and answered. */
  judge?: { intent: string; confidence: number } | null;
}

export interface FusedScores {
  effectiveWeights: FusionWeights;
  /** Every intent any path scored, fused, best first. */
  candidates: RouteCandidate[];
}

export interface Decision {
  finalIntent: string | null;
  ruleId: string | null;
  finalConfidence: number;
  decisionReason: DecisionReason;
  needClarify: boolean;
  candidates: RouteCandidate[];
  effectiveWeights: FusionWeights;
}

export type PreDecision =
  | { stage: 'decided'; decision: Decision }
  /** Decision step 4: the judge may arbitrate when `triggers` is non-empty. */
  | { stage: 'arbitrate'; triggers: JudgeTriggerReason[]; fused: FusedScores };

type Cfg = Pick<
  IntentConfig,
  'weights' | 'semanticThreshold' | 'conflictThreshold' | 'grayZoneThreshold' | 'minTriggerThreshold' | 'clarifyThreshold' | 'multiIntentThreshold'
>;

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * `confidence(c) = Σ w_p · s_p(c) / Σ w_p` over the paths that produced a result. If every producing
 * path has weight 0, they count equally (a configured 0 must not turn a hit into NaN).
 */
export function fuseScores(paths: FusionPaths, weights: FusionWeights): FusedScores {
  const active = {
    rule: paths.rule !== null,
    semantic: paths.semantic.length > 0,
    llm: paths.judge !== undefined && paths.judge !== null,
  };
  let w = {
    rule: active.rule ? weights.rule : 0,
    semantic: active.semantic ? weights.semantic : 0,
    llm: active.llm ? weights.llm : 0,
  };
  let sum = w.rule + w.semantic + w.llm;
  if (sum <= 0) {
    w = { rule: active.rule ? 1 : 0, semantic: active.semantic ? 1 : 0, llm: active.llm ? 1 : 0 };
    sum = w.rule + w.semantic + w.llm;
  }
  const effectiveWeights: FusionWeights = sum > 0 ? { rule: w.rule / sum, semantic: w.semantic / sum, llm: w.llm / sum } : { rule: 0, semantic: 0, llm: 0 };
  const scores = new Map<string, number>();
  const add = (intent: string, x: number): void => {
    scores.set(intent, (scores.get(intent) ?? 0) + x);
  };
  if (paths.rule !== null) add(paths.rule.intent, effectiveWeights.rule * paths.rule.score);
  for (const c of paths.semantic) add(c.intent, effectiveWeights.semantic * c.score);
  if (paths.judge) add(paths.judge.intent, effectiveWeights.llm * paths.judge.confidence);
  const candidates = [...scores.entries()]
    .map(([intent, confidence]) => ({ intent, confidence: round(Math.min(1, Math.max(0, confidence))) }))
    .sort((a, b) => b.confidence - a.confidence || a.intent.localeCompare(b.intent));
  return { effectiveWeights, candidates };
}

export function needClarify(confidence: number, cfg: Pick<IntentConfig, 'minTriggerThreshold' | 'clarifyThreshold'>): boolean {
  return cfg.minTriggerThreshold <= confidence && confidence < cfg.clarifyThreshold;
}

function decision(reason: DecisionReason, intent: string | null, fused: FusedScores, paths: FusionPaths, cfg: Cfg): Decision {
  const confidence = intent === null ? (fused.candidates[0]?.confidence ?? 0) : (fused.candidates.find((c) => c.intent === intent)?.confidence ?? 0);
  const ruleId = intent === null ? null : paths.rule?.intent === intent ? paths.rule.ruleId : (paths.semantic.find((c) => c.intent === intent)?.ruleId ?? null);
  return {
    finalIntent: intent,
    ruleId,
    finalConfidence: confidence,
    decisionReason: reason,
    needClarify: intent !== null && needClarify(confidence, cfg),
    candidates: fused.candidates,
    effectiveWeights: fused.effectiveWeights,
  };
}

/** Decision steps 1–3 of docs/spec/intent-routing.md (AC-117); step 4 needs `decideAfterJudge`. */
export function preDecide(paths: Omit<FusionPaths, 'judge'>, cfg: Cfg): PreDecision {
  const base: FusionPaths = { rule: paths.rule, semantic: paths.semantic };
  const fused = fuseScores(base, cfg.weights);
  const top = paths.semantic[0];
  const best = fused.candidates[0]?.confidence ?? 0;
  const triggers = judgeTriggers({ rule: paths.rule, semantic: paths.semantic, bestConfidence: best }, cfg);
  if (paths.rule !== null && !triggers.includes('conflict')) {
    return { stage: 'decided', decision: decision('rule_high_confidence', paths.rule.intent, fused, base, cfg) };
  }
  if (paths.rule === null && top !== undefined && top.score > cfg.semanticThreshold && !isMultiIntent(paths.semantic, cfg.multiIntentThreshold)) {
    return { stage: 'decided', decision: decision('semantic_override', top.intent, fused, base, cfg) };
  }
  if (fused.candidates.length === 0 || best < cfg.minTriggerThreshold) {
    return { stage: 'decided', decision: decision('no_match', null, fused, base, cfg) };
  }
  return { stage: 'arbitrate', triggers, fused };
}

/**
 * Decision step 4 (docs/spec/intent-routing.md, contract of 2026-11-30): the judge's intent when it answered
 * (`llm_judge`), else — no trigger, judge disabled, failed or timed out — the top candidate of the
 * rule + semantic fusion (seed AC-120, `fusion_fallback`). The older "semantic top" fallback let a
 * strong semantic match of another intent beat an operator's keyword rule whenever no judge answered.
 */
export function decideAfterJudge(paths: Omit<FusionPaths, 'judge'>, judge: { intent: string; confidence: number } | null, cfg: Cfg): Decision {
  if (judge !== null) {
    const withJudge: FusionPaths = { ...paths, judge };
    return decision('llm_judge', judge.intent, fuseScores(withJudge, cfg.weights), withJudge, cfg);
  }
  const base: FusionPaths = { rule: paths.rule, semantic: paths.semantic };
  const fused = fuseScores(base, cfg.weights);
  // step 4 is only reached with at least one fused candidate (step 3 answers `no_match` otherwise)
  return decision('fusion_fallback', fused.candidates[0]?.intent ?? null, fused, base, cfg);
}
