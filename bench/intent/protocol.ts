import {
  DEFAULT_INTENT_CONFIG,
  fitRouting,
  mergeIntentConfig,
  pathsOf,
  SEMANTIC_AGGREGATIONS,
  summarizeEvaluation,
  type EvaluationReport,
  type FitObservation,
  type FitResult,
  type IntentConfig,
  type IntentRouter,
  type LabelledExample,
  type RouteResult,
  type SemanticAggregation,
} from './core.js';

/** Benchmark config: judge off, everything else the product default unless overridden. */
export function benchConfig(aggregation: SemanticAggregation, minTriggerThreshold: number): IntentConfig {
  return mergeIntentConfig(DEFAULT_INTENT_CONFIG, { llmJudgeEnabled: false, semanticAggregation: aggregation, minTriggerThreshold });
}

export interface Scored {
  expected: string | null;
  /** Top intent and its fused confidence with no threshold. */
  intent: string | null;
  confidence: number;
}

export async function routeAll(router: IntentRouter, examples: readonly LabelledExample[], cfg: IntentConfig): Promise<RouteResult[]> {
  const out: RouteResult[] = [];
  for (const ex of examples) out.push(await router.route(ex.text, cfg));
  return out;
}

/** Routes with no threshold (minTriggerThreshold 0) and keeps the top intent and confidence. */
export async function scoreAll(router: IntentRouter, examples: readonly LabelledExample[], agg: SemanticAggregation): Promise<Scored[]> {
  const results = await routeAll(router, examples, benchConfig(agg, 0));
  return results.map((r, i) => ({ expected: examples[i].intent, intent: r.finalIntent, confidence: r.finalConfidence }));
}

export function inScopeAccuracyAt(scored: readonly Scored[], threshold: number): number {
  const inScope = scored.filter((s) => s.expected !== null);
  const ok = inScope.filter((s) => s.intent === s.expected && s.confidence >= threshold).length;
  return inScope.length === 0 ? 0 : ok / inScope.length;
}

export function oosRecallAt(scored: readonly Scored[], threshold: number): number | null {
  const oos = scored.filter((s) => s.expected === null);
  return oos.length === 0 ? null : oos.filter((s) => s.intent === null || s.confidence < threshold).length / oos.length;
}

/**
 * CLINC150 oos-threshold protocol as used here: the strictest threshold (0.01 grid) that keeps the
 * val in-scope accuracy within `maxDropPoints` of its no-threshold value. (Val has only 100 oos
 * examples; maximising accuracy + recall on it over-rejects.)
 */
export function chooseOosThreshold(val: readonly Scored[], maxDropPoints = 2): number {
  const base = inScopeAccuracyAt(val, 0);
  let best = 0;
  for (let i = 0; i <= 100; i++) {
    const t = i / 100;
    if ((base - inScopeAccuracyAt(val, t)) * 100 <= maxDropPoints) best = t;
  }
  return best;
}

export interface AggregationChoice {
  aggregation: SemanticAggregation;
  /** Val/holdout in-scope accuracy (no threshold) of every aggregation. */
  selection: Record<string, number>;
  scored: Scored[];
}

/** Picks the aggregation with the best selection-set in-scope accuracy (no threshold). */
export async function chooseAggregation(router: IntentRouter, select: readonly LabelledExample[]): Promise<AggregationChoice> {
  const selection: Record<string, number> = {};
  let best: AggregationChoice | null = null;
  for (const agg of SEMANTIC_AGGREGATIONS) {
    const scored = await scoreAll(router, select, agg);
    const acc = inScopeAccuracyAt(scored, 0);
    selection[agg] = round(acc * 100);
    if (best === null || acc > inScopeAccuracyAt(best.scored, 0)) best = { aggregation: agg, selection, scored };
  }
  if (best === null) throw new Error('no aggregation');
  return best;
}

export async function evaluateOnTest(
  router: IntentRouter,
  test: readonly LabelledExample[],
  agg: SemanticAggregation,
  threshold: number,
): Promise<EvaluationReport> {
  const results = await routeAll(router, test, benchConfig(agg, threshold));
  return summarizeEvaluation(results.map((result, i) => ({ expected: test[i].intent, result })));
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * The product's fit (docs/learning.md) on a selection set: paths recorded once per aggregation, then
 * the cross-validated grid search; returns the fit and the config it proposes (calibration included).
 */
export async function productFit(router: IntentRouter, select: readonly LabelledExample[]): Promise<{ fit: FitResult; config: IntentConfig }> {
  const base = benchConfig(DEFAULT_INTENT_CONFIG.semanticAggregation, DEFAULT_INTENT_CONFIG.minTriggerThreshold);
  const byAggregation = new Map<SemanticAggregation, FitObservation[]>();
  for (const agg of SEMANTIC_AGGREGATIONS) {
    const results = await routeAll(router, select, benchConfig(agg, 0));
    byAggregation.set(
      agg,
      results.map((r, i) => ({ expected: select[i].intent, paths: pathsOf(r) })),
    );
  }
  const fit = fitRouting(byAggregation, base);
  return { fit, config: mergeIntentConfig(base, { ...fit.proposed, calibration: fit.calibration }) };
}

export async function evaluateWith(router: IntentRouter, test: readonly LabelledExample[], cfg: IntentConfig): Promise<EvaluationReport> {
  const results = await routeAll(router, test, cfg);
  return summarizeEvaluation(results.map((result, i) => ({ expected: test[i].intent, result })));
}
