import { reliability, type CalibrationSample, type ReliabilityReport } from './calibration.js';
import type { DecisionReason, RouteResult } from './types.js';

/** A labelled example; `intent: null` = out of scope (the router should answer `no_match`). */
export interface LabelledExample {
  text: string;
  intent: string | null;
}

export interface IntentMetrics {
  intent: string;
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

export interface ConfusionPair {
  expected: string | null;
  predicted: string | null;
  count: number;
}

export interface EvaluationReport {
  total: number;
  inScopeTotal: number;
  outOfScopeTotal: number;
  /** Share of all examples routed to their label (null label ↔ no intent). */
  accuracy: number;
  /** Share of in-scope examples routed to their intent (a null prediction counts as wrong). */
  inScopeAccuracy: number | null;
  /** Share of out-of-scope examples routed to no intent; null without out-of-scope examples. */
  outOfScopeRecall: number | null;
  macroF1: number;
  perIntent: IntentMetrics[];
  confusions: ConfusionPair[];
  clarifyRate: number;
  /** Share of requests for which the judge was actually called. */
  judgeCallRate: number;
  decisionReasons: Record<DecisionReason, number>;
  /**
   * ECE and reliability-diagram bins of `finalConfidence` over the decisions that named an intent
   * ("right" = the labelled intent): how far the confidence reads as a probability (docs/learning.md).
   */
  reliability: ReliabilityReport;
}

export interface EvaluationOptions {
  /** Number of confusion pairs kept, most frequent first (default 10). */
  topConfusions?: number;
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

/** Pure: metrics from (label, routing result) pairs — what `rasa test nlu` reports, plus routing rates. */
export function summarizeEvaluation(pairs: readonly { expected: string | null; result: RouteResult }[], opts: EvaluationOptions = {}): EvaluationReport {
  const decisionReasons: Record<DecisionReason, number> = {
    rule_high_confidence: 0,
    semantic_override: 0,
    no_match: 0,
    llm_judge: 0,
    fusion_fallback: 0,
    clarify_resolved: 0,
  };
  const tp = new Map<string, number>();
  const predicted = new Map<string, number>();
  const support = new Map<string, number>();
  const confusion = new Map<string, ConfusionPair>();
  const inc = (m: Map<string, number>, k: string): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  let correct = 0;
  let inScope = 0;
  let inScopeCorrect = 0;
  let oos = 0;
  let oosCorrect = 0;
  let clarify = 0;
  let judgeCalls = 0;
  const samples: CalibrationSample[] = [];
  for (const { expected, result } of pairs) {
    const got = result.finalIntent;
    decisionReasons[result.decisionReason]++;
    if (result.needClarify) clarify++;
    if (result.routeTrace.llmJudge.durationMs !== undefined) judgeCalls++;
    if (got === expected) correct++;
    if (expected === null) {
      oos++;
      if (got === null) oosCorrect++;
    } else {
      inScope++;
      inc(support, expected);
      if (got === expected) inScopeCorrect++;
    }
    if (got !== null) {
      inc(predicted, got);
      samples.push({ confidence: result.finalConfidence, correct: got === expected });
    }
    if (got !== null && got === expected) inc(tp, got);
    if (got !== expected) {
      const key = `${expected ?? ''}\u0000${got ?? ''}`;
      const pair = confusion.get(key) ?? { expected, predicted: got, count: 0 };
      pair.count++;
      confusion.set(key, pair);
    }
  }
  const intents = [...new Set([...support.keys(), ...predicted.keys()])].sort();
  const perIntent = intents.map((intent) => {
    const t = tp.get(intent) ?? 0;
    const precision = ratio(t, predicted.get(intent) ?? 0);
    const recall = ratio(t, support.get(intent) ?? 0);
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    return { intent, precision, recall, f1, support: support.get(intent) ?? 0 };
  });
  const supported = perIntent.filter((m) => m.support > 0);
  return {
    total: pairs.length,
    inScopeTotal: inScope,
    outOfScopeTotal: oos,
    accuracy: ratio(correct, pairs.length),
    inScopeAccuracy: inScope === 0 ? null : inScopeCorrect / inScope,
    outOfScopeRecall: oos === 0 ? null : oosCorrect / oos,
    macroF1: ratio(
      supported.reduce((s, m) => s + m.f1, 0),
      supported.length,
    ),
    perIntent,
    confusions: [...confusion.values()]
      .sort((a, b) => b.count - a.count || String(a.expected).localeCompare(String(b.expected)))
      .slice(0, opts.topConfusions ?? 10),
    clarifyRate: ratio(clarify, pairs.length),
    judgeCallRate: ratio(judgeCalls, pairs.length),
    decisionReasons,
    reliability: reliability(samples),
  };
}

/** Routes every example (sequentially, so judge calls are not burst) and summarises. */
/** Work between two yields to the event loop during an evaluation. */
const EVALUATION_SLICE_MS = 10;

export async function evaluateIntentRouting(
  examples: readonly LabelledExample[],
  route: (text: string) => Promise<RouteResult>,
  opts: EvaluationOptions = {},
): Promise<EvaluationReport> {
  const pairs: { expected: string | null; result: RouteResult }[] = [];
  // Routing resolves in microtasks, so without a pause thousands of examples would hold the event loop
  // for seconds: yield to it every ~10 ms of work so other requests are served meanwhile.
  let sliceStart = performance.now();
  for (const ex of examples) {
    pairs.push({ expected: ex.intent, result: await route(ex.text) });
    if (performance.now() - sliceStart >= EVALUATION_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return summarizeEvaluation(pairs, opts);
}
