import { describe, expect, it } from '@jest/globals';
import { buildEvaluationPrompt, parseLlmEvaluation } from './llm-evaluator.js';

describe('parseLlmEvaluation', () => {
  it.each([
    ['{"confidence": 80, "reasoning": "Reference 1 covers E102."}', 80],
    ['```json\n{"confidence": 0, "reasoning": "No evidence."}\n```', 0],
    ['  {"confidence": 100, "reasoning": "ok", "extra": true}  ', 100],
  ])('accepts %j', (text, confidence) => {
    expect(parseLlmEvaluation(text)).toMatchObject({ ok: true, confidence });
  });

  it.each([
    ['prose', 'The answer looks fine, 80/100.', /not a JSON object/],
    ['broken JSON', '{"confidence": 80, "reasoning": ', /not a JSON object|not valid JSON/],
    ['prefix text', 'Sure! {"confidence": 80, "reasoning": "x"}', /not a JSON object/],
    ['array', '[80]', /not a JSON object/],
    ['string confidence', '{"confidence": "80", "reasoning": "x"}', /not a number/],
    ['fraction', '{"confidence": 80.5, "reasoning": "x"}', /not an integer/],
    ['0-1 scale mistaken', '{"confidence": 0.8, "reasoning": "x"}', /not an integer/],
    ['above 100', '{"confidence": 140, "reasoning": "x"}', /outside 0-100/],
    ['negative', '{"confidence": -1, "reasoning": "x"}', /outside 0-100/],
    ['missing reasoning', '{"confidence": 50}', /reasoning/],
    ['blank reasoning', '{"confidence": 50, "reasoning": "  "}', /reasoning/],
  ])('rejects %s', (_label, text, problem) => {
    const parsed = parseLlmEvaluation(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });

  it('truncates very long reasoning', () => {
    const parsed = parseLlmEvaluation(JSON.stringify({ confidence: 50, reasoning: 'x'.repeat(5000) }));
    expect(parsed.ok && parsed.reasoning.length).toBeLessThanOrEqual(2001);
  });
});

describe('buildEvaluationPrompt', () => {
  it('carries the answer and the step summary and asks for evidence-citing JSON', () => {
    const { system, user } = buildEvaluationPrompt({
      query: '机械臂报警 E102 怎么办?',
      answer: '请检查伺服电机温度。',
      status: 'SUCCESS',
      intent: 'fault_diagnosis',
      stepCount: 3,
      toolCallCount: 1,
      knowledgeSearched: true,
      references: [{ title: '伺服报警手册', filePath: 'manuals/servo.md', score: 0.82 }],
      toolInvocations: [{ toolName: 'knowledge_lookup', status: 'SUCCESS', relevanceLevel: 'HIGHLY_RELEVANT', resultSummary: '1 result' }],
    });
    expect(system).toMatch(/Cite evidence/);
    expect(system).toMatch(/"confidence": <integer 0-100>/);
    expect(user).toContain('请检查伺服电机温度。');
    expect(user).toContain('3 steps; 1 tool calls');
    expect(user).toContain('伺服报警手册 [manuals/servo.md] — score 0.82');
    expect(user).toContain('knowledge_lookup → SUCCESS, relevance HIGHLY_RELEVANT');
  });
});
