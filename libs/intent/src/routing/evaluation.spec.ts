import { describe, expect, it } from '@jest/globals';
import { evaluateIntentRouting, summarizeEvaluation } from './evaluation.js';
import type { DecisionReason, RouteResult } from './types.js';

function result(finalIntent: string | null, decisionReason: DecisionReason, opts: { clarify?: boolean; judged?: boolean } = {}): RouteResult {
  return {
    finalIntent,
    ruleId: null,
    finalConfidence: 0.5,
    decisionReason,
    needClarify: opts.clarify ?? false,
    candidates: [],
    routeTrace: {
      ruleMatch: null,
      semanticMatch: { topCandidates: [], durationMs: 0 },
      llmJudge: opts.judged ? { triggered: true, durationMs: 5 } : { triggered: false },
      fusion: {
        weights: { rule: 0.5, semantic: 0.3, llm: 0.2 },
        effectiveWeights: { rule: 0, semantic: 1, llm: 0 },
        finalConfidence: 0.5,
        decisionReason,
      },
    },
  };
}

describe('summarizeEvaluation', () => {
  const pairs = [
    { expected: 'a', result: result('a', 'semantic_override') },
    { expected: 'a', result: result('a', 'rule_high_confidence') },
    { expected: 'a', result: result('b', 'fusion_fallback', { clarify: true }) },
    { expected: 'b', result: result('b', 'llm_judge', { judged: true }) },
    { expected: 'b', result: result(null, 'no_match') },
    { expected: null, result: result(null, 'no_match') },
    { expected: null, result: result('a', 'fusion_fallback', { judged: true }) },
    { expected: 'a', result: result('b', 'fusion_fallback') },
  ];
  const r = summarizeEvaluation(pairs);

  it('computes accuracy, in-scope accuracy and out-of-scope recall', () => {
    expect(r.total).toBe(8);
    expect(r.accuracy).toBeCloseTo(4 / 8);
    expect(r.inScopeAccuracy).toBeCloseTo(3 / 6);
    expect(r.outOfScopeRecall).toBeCloseTo(1 / 2);
  });

  it('computes per-intent precision, recall and F1', () => {
    // a: predicted 3 times (2 right), support 4 → P 2/3, R 1/2; b: predicted 3 (1 right), support 2 → P 1/3, R 1/2
    const a = r.perIntent.find((m) => m.intent === 'a');
    const b = r.perIntent.find((m) => m.intent === 'b');
    expect(a).toMatchObject({ support: 4 });
    expect(a?.precision).toBeCloseTo(2 / 3);
    expect(a?.recall).toBeCloseTo(1 / 2);
    expect(a?.f1).toBeCloseTo((2 * (2 / 3) * 0.5) / (2 / 3 + 0.5));
    expect(b?.precision).toBeCloseTo(1 / 3);
    expect(b?.recall).toBeCloseTo(1 / 2);
  });

  it('lists confusion pairs by frequency, out-of-scope as null', () => {
    expect(r.confusions[0]).toEqual({ expected: 'a', predicted: 'b', count: 2 });
    expect(r.confusions).toContainEqual({ expected: 'b', predicted: null, count: 1 });
    expect(r.confusions).toContainEqual({ expected: null, predicted: 'a', count: 1 });
    expect(summarizeEvaluation(pairs, { topConfusions: 1 }).confusions).toHaveLength(1);
  });

  it('counts clarify rate, judge call rate and decision reasons', () => {
    expect(r.clarifyRate).toBeCloseTo(1 / 8);
    expect(r.judgeCallRate).toBeCloseTo(2 / 8);
    expect(r.decisionReasons).toEqual({ rule_high_confidence: 1, semantic_override: 1, no_match: 2, llm_judge: 1, fusion_fallback: 3, clarify_resolved: 0 });
  });

  it('reports null rates when a class of examples is absent', () => {
    const only = summarizeEvaluation([{ expected: 'a', result: result('a', 'semantic_override') }]);
    expect(only.outOfScopeRecall).toBeNull();
    expect(only.macroF1).toBe(1);
  });
});

describe('evaluateIntentRouting', () => {
  it('routes every example and summarises', async () => {
    const report = await evaluateIntentRouting(
      [
        { text: 'x', intent: 'a' },
        { text: 'y', intent: null },
      ],
      async (text) => result(text === 'x' ? 'a' : null, text === 'x' ? 'semantic_override' : 'no_match'),
    );
    expect(report.accuracy).toBe(1);
    expect(report.outOfScopeRecall).toBe(1);
  });
});

describe('summarizeEvaluation reliability', () => {
  it('reports ECE and bins over the decisions that named an intent', () => {
    const at = (finalIntent: string | null, confidence: number): RouteResult => ({ ...result(finalIntent, 'semantic_override'), finalConfidence: confidence });
    const r = summarizeEvaluation([
      { expected: 'a', result: at('a', 0.9) },
      { expected: 'a', result: at('b', 0.9) },
      { expected: null, result: at(null, 0.2) },
    ]);
    expect(r.reliability.samples).toBe(2);
    expect(r.reliability.bins[9]).toMatchObject({ count: 2, meanConfidence: 0.9, accuracy: 0.5 });
    expect(r.reliability.ece).toBeCloseTo(0.4, 6);
  });
});
