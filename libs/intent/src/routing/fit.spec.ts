import { describe, expect, it } from '@jest/globals';
import { DEFAULT_INTENT_CONFIG, mergeIntentConfig, type IntentConfig } from './config.js';
import { assignFolds, decideFromPaths, fitDataProblem, fitRouting, type FitObservation, type FitPaths, type FitSpace } from './fit.js';
import { decideAfterJudge, preDecide } from './fusion-policy.js';
import type { RuleMatchResult, SemanticCandidate } from './types.js';

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const rule = (intent: string): RuleMatchResult => ({
  ruleId: `r-${intent}`,
  intent,
  matchType: 'keyword',
  matchedText: intent,
  matchedBy: intent,
  score: 1,
  durationMs: 0,
});
const sem = (intent: string, score: number): SemanticCandidate => ({ intent, score, source: 'examples' });

function randomPaths(rand: () => number): FitPaths {
  const intents = ['a', 'b', 'c', 'd'];
  const n = Math.floor(rand() * 4);
  const semantic = Array.from({ length: n }, (_, i) => sem(intents[i], Math.round(rand() * 100) / 100)).sort((x, y) => y.score - x.score);
  return { rule: rand() < 0.3 ? rule(intents[Math.floor(rand() * 4)]) : null, semantic };
}

function randomConfig(rand: () => number): IntentConfig {
  const minTriggerThreshold = Math.round(rand() * 60) / 100;
  return mergeIntentConfig(DEFAULT_INTENT_CONFIG, {
    semanticThreshold: Math.round(rand() * 100) / 100,
    minTriggerThreshold,
    clarifyThreshold: Math.min(1, minTriggerThreshold + Math.round(rand() * 20) / 100),
    conflictThreshold: Math.round(rand() * 40) / 100,
    multiIntentThreshold: Math.round(rand() * 30) / 100,
    weights: { rule: Math.round(rand() * 100) / 100, semantic: Math.round(rand() * 100) / 100 },
  });
}

describe('decideFromPaths', () => {
  it('equals the router decision order with no judge answer, on 5,000 random paths and configs', () => {
    const rand = rng(7);
    for (let i = 0; i < 5000; i++) {
      const paths = randomPaths(rand);
      const cfg = randomConfig(rand);
      const pre = preDecide(paths, cfg);
      const router = pre.stage === 'decided' ? pre.decision : decideAfterJudge(paths, null, cfg);
      const fast = decideFromPaths(paths, cfg);
      expect({ i, intent: fast.intent, clarify: fast.needClarify }).toEqual({ i, intent: router.finalIntent, clarify: router.needClarify });
      if (fast.intent !== null) expect(fast.confidence).toBeCloseTo(router.finalConfidence, 9);
    }
  });
});

describe('assignFolds', () => {
  it('spreads every label over the folds (stratified) and is deterministic per seed', () => {
    const labels = [...Array(10).fill('a'), ...Array(5).fill('b'), ...Array(5).fill(null)] as (string | null)[];
    const folds = assignFolds(labels, 5, 3);
    const per = (label: string | null): number[] => {
      const counts = [0, 0, 0, 0, 0];
      labels.forEach((l, i) => l === label && counts[folds[i]]++);
      return counts;
    };
    expect(per('a')).toEqual([2, 2, 2, 2, 2]);
    expect(per('b')).toEqual([1, 1, 1, 1, 1]);
    expect(per(null)).toEqual([1, 1, 1, 1, 1]);
    expect([...assignFolds(labels, 5, 3)]).toEqual([...folds]);
  });
});

describe('fitDataProblem', () => {
  it.each([
    [['a', 'a', 'b', 'b', null], null],
    [['a', 'a', 'b', null], 'at least 2 labelled examples per intent; too few for: b'],
    [['a', 'a', 'b', 'b'], 'at least 1 out-of-scope example'],
    [[null, null], 'labelled in-scope examples'],
  ] as [(string | null)[], string | null][])('%j → %s', (labels, problem) => {
    const got = fitDataProblem(labels);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });
});

/**
 * A labelled set where the semantic score separates in-scope (≥ 0.45, right intent) from
 * out-of-scope (0.2–0.4) but the default minTriggerThreshold 0.3 lets half of out-of-scope through.
 */
function separableSet(): FitObservation[] {
  const obs: FitObservation[] = [];
  const rand = rng(11);
  for (let i = 0; i < 120; i++) {
    const intent = ['a', 'b', 'c'][i % 3];
    const score = 0.45 + rand() * 0.4;
    obs.push({ expected: intent, paths: { rule: null, semantic: [sem(intent, score), sem(intent === 'a' ? 'b' : 'a', score - 0.3)] } });
  }
  for (let i = 0; i < 40; i++) {
    const score = 0.2 + rand() * 0.2;
    obs.push({ expected: null, paths: { rule: null, semantic: [sem('c', score), sem('a', score / 2)] } });
  }
  return obs;
}

const SMALL_SPACE: FitSpace = {
  aggregations: ['classifier'],
  semanticThresholds: [0.7, 1],
  minTriggerThresholds: [0, 0.1, 0.2, 0.3, 0.36, 0.4, 0.44, 0.5, 0.6],
  clarifyBands: [0, 0.05, 0.1],
  ruleShares: [0.625],
};

describe('fitRouting', () => {
  const base = mergeIntentConfig(DEFAULT_INTENT_CONFIG, {});
  const result = fitRouting(new Map([['classifier', separableSet()]]), base, { space: SMALL_SPACE });

  it('finds the threshold that separates out-of-scope without losing in-scope answers', () => {
    expect(result.before.outOfScopeRecall).toBeLessThan(0.7);
    expect(result.proposed.minTriggerThreshold).toBeGreaterThan(0.35);
    expect(result.proposed.minTriggerThreshold).toBeLessThanOrEqual(0.44);
    expect(result.after).toMatchObject({ inScopeAccuracy: 1, outOfScopeRecall: 1 });
    expect(result.feasible).toBe(true);
  });

  it('keeps the clarify rate within its target and reports the held-out estimate', () => {
    expect(result.after.clarifyRate).toBeLessThanOrEqual(0.1);
    expect(result.crossValidated.total).toBe(160);
    expect(result.crossValidated.inScopeAccuracy).toBeGreaterThan(0.95);
    expect(result.configsSearched).toBe(2 * 9 * 3);
  });

  it('calibrates: the map is monotone and the held-out calibrated ECE is below the raw one', () => {
    const { x, y } = result.calibration;
    for (let i = 1; i < x.length; i++) {
      expect(x[i]).toBeGreaterThan(x[i - 1]);
      expect(y[i]).toBeGreaterThanOrEqual(y[i - 1]);
    }
    expect(result.reliability.calibrated.ece).toBeLessThan(result.reliability.raw.ece);
  });

  it('reports infeasible targets instead of pretending', () => {
    const strict = fitRouting(new Map([['classifier', separableSet()]]), base, {
      space: { ...SMALL_SPACE, minTriggerThresholds: [0, 0.3] },
      targets: { minOutOfScopeRecall: 0.9, maxClarifyRate: 0.1 },
    });
    expect(strict.feasible).toBe(false);
    expect(strict.proposed.minTriggerThreshold).toBe(0.3); // the least violation
  });

  it('fails loudly without observations for the current aggregation', () => {
    expect(() => fitRouting(new Map([['max', separableSet()]]), base, { space: SMALL_SPACE })).toThrow(/current aggregation/);
  });
});
