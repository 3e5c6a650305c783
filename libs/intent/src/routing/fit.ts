/**
 * Fitting the routing thresholds on labelled data (docs/learning.md "Fit"). Pure: no Nest, no database.
 *
 * Each labelled message is routed once per semantic aggregation to record its paths (rule match and
 * semantic candidates — neither depends on the thresholds or weights); every candidate config is then
 * decided from those paths by {@link decideFromPaths}, which is the decision order of
 * docs/spec/intent-routing.md with the judge not answering (a fit cannot replay an LLM). Its equality
 * with `preDecide` + `decideAfterJudge(…, null)` is checked by fit.spec.ts on random paths.
 */
import { applyCalibration, fitIsotonic, reliability, type CalibrationSample, type IsotonicCalibration, type ReliabilityReport } from './calibration.js';
import { SEMANTIC_AGGREGATIONS, type IntentConfig, type SemanticAggregation } from './config.js';
import { fuseScores } from './fusion-policy.js';
import { isMultiIntent } from './llm-judge.js';
import { rng } from './softmax-classifier.js';
import type { FusionWeights, RouteResult, RuleMatchResult, SemanticCandidate } from './types.js';

export interface FitPaths {
  rule: RuleMatchResult | null;
  semantic: readonly SemanticCandidate[];
}

/** One labelled message with its paths under one aggregation. */
export interface FitObservation {
  expected: string | null;
  paths: FitPaths;
}

/** What the fit may change, each an explicit grid (docs/learning.md lists the defaults' reasons). */
export interface FitSpace {
  aggregations: readonly SemanticAggregation[];
  semanticThresholds: readonly number[];
  minTriggerThresholds: readonly number[];
  /** Width of the clarify band: `clarifyThreshold = minTriggerThreshold + band` (capped at 1). */
  clarifyBands: readonly number[];
  /** Share of the rule path in rule + semantic (the judge's weight is kept). */
  ruleShares: readonly number[];
}

const grid = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to + 1e-9; v += step) out.push(Math.round(v * 1000) / 1000);
  return out;
};

export const DEFAULT_FIT_SPACE: Readonly<FitSpace> = Object.freeze({
  aggregations: SEMANTIC_AGGREGATIONS,
  // 1 = never override by the semantic path alone (every semantic answer then passes minTriggerThreshold)
  semanticThresholds: [...grid(0.5, 0.95, 0.05), 1],
  minTriggerThresholds: grid(0, 0.8, 0.02),
  clarifyBands: [0, 0.02, 0.05, 0.1],
  ruleShares: [0.5, 0.625, 0.75],
});

export interface FitTargets {
  /** Out-of-scope recall must reach this (default 0.5). */
  minOutOfScopeRecall: number;
  /** Clarify rate must stay at or below this (default 0.1). */
  maxClarifyRate: number;
}

export const DEFAULT_FIT_TARGETS: Readonly<FitTargets> = Object.freeze({ minOutOfScopeRecall: 0.5, maxClarifyRate: 0.1 });

export interface FitMetrics {
  total: number;
  inScope: number;
  outOfScope: number;
  inScopeAccuracy: number | null;
  outOfScopeRecall: number | null;
  clarifyRate: number;
  accuracy: number;
}

/** The config keys a fit proposes. */
export interface FittedConfig {
  semanticAggregation: SemanticAggregation;
  semanticThreshold: number;
  minTriggerThreshold: number;
  clarifyThreshold: number;
  weights: FusionWeights;
}

export type FitDecisionConfig = Pick<
  IntentConfig,
  'weights' | 'semanticThreshold' | 'conflictThreshold' | 'minTriggerThreshold' | 'clarifyThreshold' | 'multiIntentThreshold'
>;

/** Gaps compared with the tolerance `judgeTriggers` uses. */
const EPS = 1e-9;

export interface PathDecision {
  intent: string | null;
  confidence: number;
  needClarify: boolean;
}

/** What a decision would be before `minTriggerThreshold` applies (see {@link decideFromPaths}). */
interface Provisional {
  /** 0: decided regardless of minTrigger (rule or semantic override); 1: needs ≥ minTrigger; 2: no candidate. */
  kind: 0 | 1 | 2;
  intent: string | null;
  confidence: number;
}

function provisional(
  paths: FitPaths,
  weights: FusionWeights,
  cfg: Pick<IntentConfig, 'semanticThreshold' | 'conflictThreshold' | 'multiIntentThreshold'>,
): Provisional {
  const fused = fuseScores(paths, weights);
  const conf = (intent: string): number => fused.candidates.find((c) => c.intent === intent)?.confidence ?? 0;
  const top = paths.semantic[0];
  if (paths.rule !== null) {
    const conflict = top !== undefined && top.intent !== paths.rule.intent && Math.abs(paths.rule.score - top.score) < cfg.conflictThreshold - EPS;
    if (!conflict) return { kind: 0, intent: paths.rule.intent, confidence: conf(paths.rule.intent) };
  }
  if (paths.rule === null && top !== undefined && top.score > cfg.semanticThreshold && !isMultiIntent(paths.semantic, cfg.multiIntentThreshold)) {
    return { kind: 0, intent: top.intent, confidence: conf(top.intent) };
  }
  const best = fused.candidates[0];
  if (best === undefined) return { kind: 2, intent: null, confidence: 0 };
  return { kind: 1, intent: best.intent, confidence: best.confidence };
}

/**
 * The router's decision from recorded paths with no judge answer: rule (no conflict) → semantic
 * override → no_match below `minTriggerThreshold` → top fused candidate; clarify inside the band.
 */
export function decideFromPaths(paths: FitPaths, cfg: FitDecisionConfig): PathDecision {
  const p = provisional(paths, cfg.weights, cfg);
  if (p.kind === 2 || (p.kind === 1 && p.confidence < cfg.minTriggerThreshold)) return { intent: null, confidence: p.confidence, needClarify: false };
  return { intent: p.intent, confidence: p.confidence, needClarify: cfg.minTriggerThreshold <= p.confidence && p.confidence < cfg.clarifyThreshold };
}

export interface FitOptions {
  space?: FitSpace;
  targets?: FitTargets;
  /** Cross-validation folds (stratified by label), default 5. */
  folds?: number;
  /** Seed of the fold assignment. */
  seed?: number;
}

export interface FitResult {
  /** Whether the chosen config meets both targets on the labelled set. */
  feasible: boolean;
  proposed: FittedConfig;
  calibration: IsotonicCalibration;
  /** The current config on the whole labelled set (no fitting involved). */
  before: FitMetrics;
  /** The proposed config on the whole labelled set (optimistic: chosen on it). */
  after: FitMetrics;
  /** Each fold scored by the config chosen on the other folds: the estimate to trust. */
  crossValidated: FitMetrics;
  /** Reliability of decisions that name an intent: raw fused confidence vs. calibrated on held-out folds. */
  reliability: { raw: ReliabilityReport; calibrated: ReliabilityReport };
  folds: number;
  configsSearched: number;
  targets: FitTargets;
}

/** Stratified fold ids: each label's examples are shuffled and dealt round-robin. */
export function assignFolds(labels: readonly (string | null)[], folds: number, seed = 1): Int32Array {
  const rand = rng(seed);
  const byLabel = new Map<string, number[]>();
  labels.forEach((label, i) => {
    const key = label ?? '\u0000oos';
    const list = byLabel.get(key) ?? [];
    list.push(i);
    byLabel.set(key, list);
  });
  const out = new Int32Array(labels.length);
  let offset = 0;
  for (const key of [...byLabel.keys()].sort()) {
    const list = byLabel.get(key) ?? [];
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    // continue the deal where the previous label stopped so small labels do not all land in fold 0
    list.forEach((idx, k) => (out[idx] = (offset + k) % folds));
    offset = (offset + list.length) % folds;
  }
  return out;
}

/** Counts per (config, fold): in-scope right, out-of-scope right, clarify. */
const C_IN = 0;
const C_OOS = 1;
const C_CLARIFY = 2;
const COUNTS = 3;

interface Grid {
  configs: FittedConfig[];
  counts: Int32Array;
}

function weightsFor(base: FusionWeights, share: number): FusionWeights {
  const rs = base.rule + base.semantic;
  const total = rs > 0 ? rs : 1;
  const round = (v: number): number => Math.round(v * 1e4) / 1e4;
  return { rule: round(total * share), semantic: round(total * (1 - share)), llm: base.llm };
}

function searchGrid(
  byAggregation: ReadonlyMap<SemanticAggregation, readonly FitObservation[]>,
  base: IntentConfig,
  space: FitSpace,
  fold: Int32Array,
  folds: number,
): Grid {
  const configs: FittedConfig[] = [];
  const chunks: Int32Array[] = [];
  for (const aggregation of space.aggregations) {
    const obs = byAggregation.get(aggregation);
    if (obs === undefined) continue;
    const n = obs.length;
    const kind = new Uint8Array(n);
    const conf = new Float64Array(n);
    const right = new Uint8Array(n);
    const oos = new Uint8Array(n);
    for (let i = 0; i < n; i++) oos[i] = obs[i].expected === null ? 1 : 0;
    for (const share of space.ruleShares) {
      const weights = weightsFor(base.weights, share);
      for (const semanticThreshold of space.semanticThresholds) {
        const cfg = { semanticThreshold, conflictThreshold: base.conflictThreshold, multiIntentThreshold: base.multiIntentThreshold };
        for (let i = 0; i < n; i++) {
          const p = provisional(obs[i].paths, weights, cfg);
          kind[i] = p.kind;
          conf[i] = p.confidence;
          right[i] = p.intent !== null && p.intent === obs[i].expected ? 1 : 0;
        }
        for (const minTriggerThreshold of space.minTriggerThresholds) {
          for (const band of space.clarifyBands) {
            const clarifyThreshold = Math.min(1, Math.round((minTriggerThreshold + band) * 1000) / 1000);
            const counts = new Int32Array(folds * COUNTS);
            for (let i = 0; i < n; i++) {
              const k = kind[i];
              const named = k === 0 || (k === 1 && conf[i] >= minTriggerThreshold);
              const at = fold[i] * COUNTS;
              if (!named) {
                if (oos[i] === 1) counts[at + C_OOS]++;
                continue;
              }
              if (right[i] === 1) counts[at + C_IN]++;
              if (minTriggerThreshold <= conf[i] && conf[i] < clarifyThreshold) counts[at + C_CLARIFY]++;
            }
            configs.push({ semanticAggregation: aggregation, semanticThreshold, minTriggerThreshold, clarifyThreshold, weights });
            chunks.push(counts);
          }
        }
      }
    }
  }
  const counts = new Int32Array(chunks.length * folds * COUNTS);
  chunks.forEach((c, i) => counts.set(c, i * folds * COUNTS));
  return { configs, counts };
}

interface FoldTotals {
  inScope: Int32Array;
  oos: Int32Array;
}

function metricsOf(grid: Grid, config: number, folds: number, totals: FoldTotals, include: (f: number) => boolean): FitMetrics {
  let inRight = 0;
  let oosRight = 0;
  let clarify = 0;
  let inScope = 0;
  let oos = 0;
  for (let f = 0; f < folds; f++) {
    if (!include(f)) continue;
    const at = (config * folds + f) * COUNTS;
    inRight += grid.counts[at + C_IN];
    oosRight += grid.counts[at + C_OOS];
    clarify += grid.counts[at + C_CLARIFY];
    inScope += totals.inScope[f];
    oos += totals.oos[f];
  }
  const total = inScope + oos;
  return {
    total,
    inScope,
    outOfScope: oos,
    inScopeAccuracy: inScope === 0 ? null : inRight / inScope,
    outOfScopeRecall: oos === 0 ? null : oosRight / oos,
    clarifyRate: total === 0 ? 0 : clarify / total,
    accuracy: total === 0 ? 0 : (inRight + oosRight) / total,
  };
}

function violation(m: FitMetrics, t: FitTargets): number {
  const oos = m.outOfScopeRecall === null ? 0 : Math.max(0, t.minOutOfScopeRecall - m.outOfScopeRecall);
  return oos + Math.max(0, m.clarifyRate - t.maxClarifyRate);
}

/** True when `a` beats `b`: feasible first, then in-scope accuracy, out-of-scope recall, fewer clarifications. */
function better(a: FitMetrics, b: FitMetrics, t: FitTargets): boolean {
  const va = violation(a, t);
  const vb = violation(b, t);
  if (va !== vb) return va < vb;
  const keys: [number, number][] = [
    [a.inScopeAccuracy ?? 0, b.inScopeAccuracy ?? 0],
    [a.outOfScopeRecall ?? 0, b.outOfScopeRecall ?? 0],
    [-a.clarifyRate, -b.clarifyRate],
  ];
  for (const [x, y] of keys) if (Math.abs(x - y) > 1e-12) return x > y;
  return false;
}

function choose(grid: Grid, folds: number, totals: FoldTotals, targets: FitTargets, include: (f: number) => boolean): number {
  let best = 0;
  let bestMetrics = metricsOf(grid, 0, folds, totals, include);
  for (let c = 1; c < grid.configs.length; c++) {
    const m = metricsOf(grid, c, folds, totals, include);
    if (better(m, bestMetrics, targets)) {
      best = c;
      bestMetrics = m;
    }
  }
  return best;
}

function evaluateConfig(obs: readonly FitObservation[], cfg: FitDecisionConfig): { metrics: FitMetrics; samples: CalibrationSample[] } {
  let inScope = 0;
  let oos = 0;
  let inRight = 0;
  let oosRight = 0;
  let clarify = 0;
  const samples: CalibrationSample[] = [];
  for (const o of obs) {
    const d = decideFromPaths(o.paths, cfg);
    if (o.expected === null) oos++;
    else inScope++;
    if (d.intent === null) {
      if (o.expected === null) oosRight++;
      continue;
    }
    if (d.intent === o.expected) inRight++;
    if (d.needClarify) clarify++;
    samples.push({ confidence: d.confidence, correct: d.intent === o.expected });
  }
  const total = inScope + oos;
  return {
    metrics: {
      total,
      inScope,
      outOfScope: oos,
      inScopeAccuracy: inScope === 0 ? null : inRight / inScope,
      outOfScopeRecall: oos === 0 ? null : oosRight / oos,
      clarifyRate: total === 0 ? 0 : clarify / total,
      accuracy: total === 0 ? 0 : (inRight + oosRight) / total,
    },
    samples,
  };
}

/**
 * Cross-validated fit: picks the config of `space` with the best in-scope accuracy subject to the
 * targets (or the least violation when none meets them), estimates it on held-out folds, and fits an
 * isotonic calibration of the chosen config's confidence (held-out reliability reported).
 * `byAggregation` must hold the current config's aggregation.
 */
export function fitRouting(byAggregation: ReadonlyMap<SemanticAggregation, readonly FitObservation[]>, base: IntentConfig, opts: FitOptions = {}): FitResult {
  const space = opts.space ?? DEFAULT_FIT_SPACE;
  const targets = opts.targets ?? DEFAULT_FIT_TARGETS;
  const current = byAggregation.get(base.semanticAggregation);
  if (current === undefined) throw new Error(`fitRouting: no observations for the current aggregation ${base.semanticAggregation}`);
  const labels = current.map((o) => o.expected);
  const folds = Math.max(2, Math.min(opts.folds ?? 5, labels.length));
  const fold = assignFolds(labels, folds, opts.seed ?? 1);
  const totals: FoldTotals = { inScope: new Int32Array(folds), oos: new Int32Array(folds) };
  labels.forEach((label, i) => (label === null ? totals.oos[fold[i]]++ : totals.inScope[fold[i]]++));
  const grid = searchGrid(byAggregation, base, space, fold, folds);
  if (grid.configs.length === 0) throw new Error('fitRouting: empty search space');

  // held-out estimate: every fold scored by the config chosen without it
  const heldOut = new Int32Array(3);
  for (let f = 0; f < folds; f++) {
    const chosen = choose(grid, folds, totals, targets, (g) => g !== f);
    const at = (chosen * folds + f) * COUNTS;
    heldOut[C_IN] += grid.counts[at + C_IN];
    heldOut[C_OOS] += grid.counts[at + C_OOS];
    heldOut[C_CLARIFY] += grid.counts[at + C_CLARIFY];
  }
  const inScope = totals.inScope.reduce((s, v) => s + v, 0);
  const oos = totals.oos.reduce((s, v) => s + v, 0);
  const crossValidated: FitMetrics = {
    total: inScope + oos,
    inScope,
    outOfScope: oos,
    inScopeAccuracy: inScope === 0 ? null : heldOut[C_IN] / inScope,
    outOfScopeRecall: oos === 0 ? null : heldOut[C_OOS] / oos,
    clarifyRate: inScope + oos === 0 ? 0 : heldOut[C_CLARIFY] / (inScope + oos),
    accuracy: inScope + oos === 0 ? 0 : (heldOut[C_IN] + heldOut[C_OOS]) / (inScope + oos),
  };

  const best = choose(grid, folds, totals, targets, () => true);
  const proposed = grid.configs[best];
  const after = metricsOf(grid, best, folds, totals, () => true);
  const chosenObs = byAggregation.get(proposed.semanticAggregation) ?? current;
  const decisionCfg: FitDecisionConfig = { ...base, ...proposed };
  const before = evaluateConfig(current, base).metrics;

  // calibration: out-of-fold reliability, then the map fitted on everything
  const raw: CalibrationSample[] = [];
  const calibrated: CalibrationSample[] = [];
  const perFold: CalibrationSample[][] = Array.from({ length: folds }, () => []);
  chosenObs.forEach((o, i) => {
    const d = decideFromPaths(o.paths, decisionCfg);
    if (d.intent !== null) perFold[fold[i]].push({ confidence: d.confidence, correct: d.intent === o.expected });
  });
  for (let f = 0; f < folds; f++) {
    const map = fitIsotonic(perFold.filter((_, g) => g !== f).flat());
    for (const s of perFold[f]) {
      raw.push(s);
      calibrated.push({ confidence: applyCalibration(map, s.confidence), correct: s.correct });
    }
  }
  return {
    feasible: violation(after, targets) === 0,
    proposed,
    calibration: fitIsotonic(perFold.flat()),
    before,
    after,
    crossValidated,
    reliability: { raw: reliability(raw), calibrated: reliability(calibrated) },
    folds,
    configsSearched: grid.configs.length,
    targets,
  };
}

/** The paths a route result recorded (what {@link fitRouting} consumes). */
export function pathsOf(result: RouteResult): FitPaths {
  return { rule: result.routeTrace.ruleMatch, semantic: result.routeTrace.semanticMatch.topCandidates };
}

/** Minimum labelled data for a fit (docs/learning.md): per intent, and out-of-scope examples. */
export const FIT_MIN_EXAMPLES_PER_INTENT = 2;
export const FIT_MIN_OUT_OF_SCOPE = 1;

/** Why a labelled set cannot be fitted on, or null. Intents with fewer than the minimum are listed. */
export function fitDataProblem(labels: readonly (string | null)[]): string | null {
  const counts = new Map<string, number>();
  let oos = 0;
  for (const l of labels) {
    if (l === null) oos++;
    else counts.set(l, (counts.get(l) ?? 0) + 1);
  }
  if (counts.size === 0) return `a fit needs labelled in-scope examples (at least ${FIT_MIN_EXAMPLES_PER_INTENT} per intent)`;
  const thin = [...counts.entries()].filter(([, n]) => n < FIT_MIN_EXAMPLES_PER_INTENT).map(([intent]) => intent);
  if (thin.length > 0) {
    const shown = thin.sort().slice(0, 20).join(', ');
    return `a fit needs at least ${FIT_MIN_EXAMPLES_PER_INTENT} labelled examples per intent; too few for: ${shown}${thin.length > 20 ? ` (+${thin.length - 20} more)` : ''}`;
  }
  if (oos < FIT_MIN_OUT_OF_SCOPE) return `a fit needs at least ${FIT_MIN_OUT_OF_SCOPE} out-of-scope example (intent null)`;
  return null;
}
