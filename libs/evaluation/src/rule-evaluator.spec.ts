import { describe, expect, it } from '@jest/globals';
import { ruleEvaluation } from './rule-evaluator.js';

describe('ruleEvaluation (base 60, +5/tool call max +20, +10 when steps <= 3, FAILED → 0)', () => {
  it.each([
    // failed, steps, tools, expected
    [false, 3, 0, 70],
    [false, 4, 0, 60],
    [false, 0, 0, 70],
    [false, 3, 1, 75],
    [false, 4, 1, 65],
    [false, 3, 4, 90],
    [false, 4, 4, 80],
    [false, 3, 5, 90],
    [false, 4, 5, 80],
    [false, 10, 50, 80],
    [true, 1, 4, 0],
    [true, 10, 0, 0],
  ])('failed=%s steps=%i tools=%i → %i', (failed, stepCount, toolCallCount, expected) => {
    expect(ruleEvaluation({ failed, stepCount, toolCallCount }, 'llm_disabled').confidence).toBe(expected);
  });

  it('names the rules applied and why the LLM was not used', () => {
    const r = ruleEvaluation({ failed: false, stepCount: 2, toolCallCount: 6 }, 'llm_timeout', 'no answer within 2000 ms');
    expect(r.reasoning).toContain('base 60');
    expect(r.reasoning).toContain('6 tool calls × +5 → +20 (capped at +20)');
    expect(r.reasoning).toContain('2 steps <= 3 → +10');
    expect(r.reasoning).toContain('LLM track not used: the LLM did not answer in time (no answer within 2000 ms)');
  });

  it('explains the over-threshold step rule and the zero-tool case', () => {
    const r = ruleEvaluation({ failed: false, stepCount: 4, toolCallCount: 0 }, 'llm_disabled');
    expect(r.reasoning).toContain('no tool calls → +0');
    expect(r.reasoning).toContain('4 steps > 3 → +0');
    expect(r.reasoning).toContain('no LLM is configured');
  });

  it('explains FAILED → 0', () => {
    expect(ruleEvaluation({ failed: true, stepCount: 1, toolCallCount: 2 }, 'llm_invalid_output', 'confidence 140 out of range').reasoning).toMatch(
      /status FAILED → 0.*not valid .*confidence 140 out of range/,
    );
  });
});
