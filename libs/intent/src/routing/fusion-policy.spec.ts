import { describe, expect, it } from '@jest/globals';
import { decideAfterJudge, fuseScores, needClarify, preDecide } from './fusion-policy.js';
import { config, ruleHit, sem } from './testing/fixtures.js';
import type { DecisionReason, JudgeTriggerReason, RuleMatchResult, SemanticCandidate } from './types.js';

const cfg = config();

describe('fuseScores: weights renormalised over the paths that produced a result', () => {
  const cases: [
    string,
    RuleMatchResult | null,
    SemanticCandidate[],
    { intent: string; confidence: number } | null,
    { rule: number; semantic: number; llm: number },
    string,
    number,
  ][] = [
    ['semantic only: 0.9 stays 0.9 (not 0.27)', null, sem(['a', 0.9]), null, { rule: 0, semantic: 1, llm: 0 }, 'a', 0.9],
    ['rule only', ruleHit('a'), [], null, { rule: 1, semantic: 0, llm: 0 }, 'a', 1],
    ['rule + semantic on the same intent', ruleHit('a'), sem(['a', 0.9]), null, { rule: 0.625, semantic: 0.375, llm: 0 }, 'a', 0.9625],
    ['all three paths', ruleHit('a'), sem(['b', 0.85]), { intent: 'b', confidence: 0.8 }, { rule: 0.5, semantic: 0.3, llm: 0.2 }, 'b', 0.415],
    ['semantic + judge', null, sem(['a', 0.5], ['b', 0.45]), { intent: 'a', confidence: 0.9 }, { rule: 0, semantic: 0.6, llm: 0.4 }, 'a', 0.66],
  ];
  it.each(cases)('%s', (_n, rule, semantic, judge, weights, intent, confidence) => {
    const fused = fuseScores({ rule, semantic, judge }, cfg.weights);
    expect(fused.effectiveWeights.rule).toBeCloseTo(weights.rule, 6);
    expect(fused.effectiveWeights.semantic).toBeCloseTo(weights.semantic, 6);
    expect(fused.effectiveWeights.llm).toBeCloseTo(weights.llm, 6);
    expect(fused.candidates.find((c) => c.intent === intent)?.confidence).toBeCloseTo(confidence, 6);
  });

  it('counts producing paths equally when all of their weights are 0', () => {
    const fused = fuseScores({ rule: null, semantic: sem(['a', 0.8]) }, { rule: 1, semantic: 0, llm: 0 });
    expect(fused.effectiveWeights.semantic).toBe(1);
    expect(fused.candidates[0]).toEqual({ intent: 'a', confidence: 0.8 });
  });

  it('orders candidates by fused confidence', () => {
    const fused = fuseScores({ rule: ruleHit('b'), semantic: sem(['a', 0.9], ['b', 0.2]) }, cfg.weights);
    expect(fused.candidates.map((c) => c.intent)).toEqual(['b', 'a']);
  });
});

describe('preDecide / decideAfterJudge: decision order of docs/spec/intent-routing.md (AC-117)', () => {
  type Row = [string, RuleMatchResult | null, SemanticCandidate[], DecisionReason | 'arbitrate', string | null, number, JudgeTriggerReason[]];
  const rows: Row[] = [
    ['1. rule hit, no semantic', ruleHit('a'), [], 'rule_high_confidence', 'a', 1, []],
    ['1. rule hit agrees with semantic', ruleHit('a'), sem(['a', 0.9]), 'rule_high_confidence', 'a', 0.9625, []],
    ['1. rule hit, weak other semantic (no conflict)', ruleHit('a'), sem(['b', 0.5]), 'rule_high_confidence', 'a', 0.625, []],
    ['4. rule hit conflicts with strong semantic', ruleHit('a'), sem(['b', 0.85]), 'arbitrate', null, 0, ['conflict']],
    ['2. semantic above threshold, clear top', null, sem(['a', 0.9], ['b', 0.3]), 'semantic_override', 'a', 0.9, []],
    ['4. semantic above threshold but multi-intent', null, sem(['a', 0.9], ['b', 0.8]), 'arbitrate', null, 0, ['multi_intent']],
    ['3. semantic below min trigger', null, sem(['a', 0.2]), 'no_match', null, 0.2, []],
    ['3. nothing at all', null, [], 'no_match', null, 0, []],
    ['4. gray zone', null, sem(['a', 0.5]), 'arbitrate', null, 0, ['gray_zone']],
    ['4. gray zone and multi-intent', null, sem(['a', 0.5], ['b', 0.45]), 'arbitrate', null, 0, ['gray_zone', 'multi_intent']],
    ['4. between gray zone and threshold, no trigger', null, sem(['a', 0.65]), 'arbitrate', null, 0, []],
    ['4. exactly the semantic threshold is not above it', null, sem(['a', 0.7]), 'arbitrate', null, 0, []],
    ['4. exactly the min trigger: not no_match, not gray', null, sem(['a', 0.3]), 'arbitrate', null, 0, []],
  ];
  it.each(rows)('%s', (_n, rule, semantic, expected, intent, confidence, triggers) => {
    const pre = preDecide({ rule, semantic }, cfg);
    if (expected === 'arbitrate') {
      expect(pre.stage).toBe('arbitrate');
      if (pre.stage === 'arbitrate') expect(pre.triggers).toEqual(triggers);
      return;
    }
    expect(pre.stage).toBe('decided');
    if (pre.stage !== 'decided') return;
    expect(pre.decision.decisionReason).toBe(expected);
    expect(pre.decision.finalIntent).toBe(intent);
    expect(pre.decision.finalConfidence).toBeCloseTo(confidence, 6);
  });

  const after: [string, RuleMatchResult | null, SemanticCandidate[], { intent: string; confidence: number } | null, DecisionReason, string, number, boolean][] =
    [
      ['judge answers in a gray zone', null, sem(['a', 0.5], ['b', 0.45]), { intent: 'b', confidence: 0.9 }, 'llm_judge', 'b', 0.63, false],
      ['judge sides with the rule in a conflict', ruleHit('a'), sem(['b', 0.85]), { intent: 'a', confidence: 0.9 }, 'llm_judge', 'a', 0.68, false],
      // step 4 without a judge answer: the top of the rule + semantic fusion (contract of 2026-11-30)
      [
        'no judge answer, conflict: the keyword rule fuses to 0.625 and beats the semantic 0.319',
        ruleHit('a'),
        sem(['b', 0.85]),
        null,
        'fusion_fallback',
        'a',
        0.625,
        false,
      ],
      [
        'no judge answer, conflict: the rule intent also gains its own semantic score',
        ruleHit('a'),
        sem(['b', 0.85], ['a', 0.3]),
        null,
        'fusion_fallback',
        'a',
        0.7375,
        false,
      ],
      ['no judge answer, multi-intent: the fused top', null, sem(['a', 0.9], ['b', 0.8]), null, 'fusion_fallback', 'a', 0.9, false],
      ['no judge answer (gray zone)', null, sem(['a', 0.5]), null, 'fusion_fallback', 'a', 0.5, false],
      ['no judge answer at the min trigger: clarify', null, sem(['a', 0.3]), null, 'fusion_fallback', 'a', 0.3, true],
    ];
  it.each(after)('%s', (_n, rule, semantic, judge, reason, intent, confidence, clarify) => {
    const d = decideAfterJudge({ rule, semantic }, judge, cfg);
    expect(d.decisionReason).toBe(reason);
    expect(d.finalIntent).toBe(intent);
    expect(d.finalConfidence).toBeCloseTo(confidence, 6);
    expect(d.needClarify).toBe(clarify);
  });

  it('fusion_fallback takes the ruleId of the winning rule', () => {
    const d = decideAfterJudge({ rule: ruleHit('a', 'R1'), semantic: sem(['b', 0.85]) }, null, cfg);
    expect(d).toMatchObject({ finalIntent: 'a', ruleId: 'R1', decisionReason: 'fusion_fallback', needClarify: false });
    expect(d.candidates.map((c) => c.intent)).toEqual(['a', 'b']);
  });

  it('takes ruleId from the rule when the rule intent wins, else from the semantic candidate', () => {
    const r = preDecide({ rule: ruleHit('a', 'R1'), semantic: [] }, cfg);
    expect(r.stage === 'decided' && r.decision.ruleId).toBe('R1');
    const s = preDecide({ rule: null, semantic: sem(['b', 0.95]) }, cfg);
    expect(s.stage === 'decided' && s.decision.ruleId).toBe('rule-b');
    const n = preDecide({ rule: null, semantic: [] }, cfg);
    expect(n.stage === 'decided' && n.decision.ruleId).toBeNull();
  });

  it('honours tenant thresholds', () => {
    const strict = config({ semanticThreshold: 0.95 });
    expect(preDecide({ rule: null, semantic: sem(['a', 0.9]) }, strict).stage).toBe('arbitrate');
    const lenient = config({ minTriggerThreshold: 0.1 });
    expect(preDecide({ rule: null, semantic: sem(['a', 0.2]) }, lenient).stage).toBe('arbitrate');
  });
});

describe('needClarify band: minTriggerThreshold <= confidence < clarifyThreshold', () => {
  const band: [number, boolean][] = [
    [0, false],
    [0.299, false],
    [0.3, true],
    [0.35, true],
    [0.399, true],
    [0.4, false],
    [0.9, false],
  ];
  it.each(band)('confidence %p → %p', (confidence, expected) => {
    expect(needClarify(confidence, cfg)).toBe(expected);
  });

  it('is never set for no_match', () => {
    const pre = preDecide({ rule: null, semantic: sem(['a', 0.29]) }, cfg);
    expect(pre.stage === 'decided' && pre.decision.needClarify).toBe(false);
  });
});
