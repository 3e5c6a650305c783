import { describe, expect, it } from '@jest/globals';
import { compilePattern, IntentRuleValidationError, validateIntentRuleDef, type RuleIssueCode } from './rule-validation.js';

const base = { intent: 'x', keywords: [] as string[], patterns: [] as string[], semanticExamples: [] as string[] };

describe('validateIntentRuleDef', () => {
  const rows: [string, Partial<typeof base> & { intentVector?: number[] }, number | undefined, RuleIssueCode[]][] = [
    ['a keyword is enough', { keywords: ['help'] }, undefined, []],
    ['an example is enough', { semanticExamples: ['where is my card'] }, undefined, []],
    ['a vector of the right dimension is enough', { intentVector: [0.6, 0.8] }, 2, []],
    ['nothing at all', {}, undefined, ['empty_rule']],
    ['only blank keywords and examples', { keywords: [' '], semanticExamples: [''] }, undefined, ['empty_keyword', 'empty_rule']],
    ['invalid regex', { patterns: ['(a'] }, undefined, ['invalid_pattern']],
    ['wrong vector dimension', { intentVector: [1, 0, 0] }, 2, ['vector_dimension_mismatch']],
    ['non-finite vector', { intentVector: [Number.NaN, 1] }, 2, ['vector_not_finite']],
    ['empty intent', { intent: ' ', keywords: ['k'] }, undefined, ['empty_intent']],
  ];
  it.each(rows)('%s', (_n, partial, dim, codes) => {
    const issues = validateIntentRuleDef({ ...base, ...partial }, dim === undefined ? {} : { vectorDimension: dim });
    expect(issues.map((i) => i.code)).toEqual(codes);
  });

  it('names the offending pattern and its index', () => {
    const [issue] = validateIntentRuleDef({ ...base, patterns: ['ok', '[z-a]'] });
    expect(issue).toMatchObject({ field: 'patterns[1]', pattern: '[z-a]', code: 'invalid_pattern' });
    expect(issue.message).toContain('[z-a]');
  });
});

describe('compilePattern', () => {
  it('compiles with RE2 (case-insensitive) and throws IntentRuleValidationError otherwise', () => {
    expect(compilePattern('abc').test('xABCx')).toBe(true);
    expect(() => compilePattern('(?=x)')).toThrow(IntentRuleValidationError);
  });
});
