import { describe, expect, it } from '@jest/globals';
import { RuleMatcher } from './rule-matcher.js';
import { checkRuleSet, compilePatternSet, patternKey, servedPatterns, type PatternRef, type RuleSetCheck } from './rule-set-check.js';
import { config, rule } from './testing/fixtures.js';
import { IntentRouter } from './intent-router.js';

/** The issue's pattern (issue 29, finding 2): compiles alone, but no RE2 set within 8 MiB holds it. */
const HUGE = '\\p{L}{0,200}z';
/** Fits the limit alone and twice, not four times (measured; the culprit is then a later copy). */
const MEDIUM = (i: number): string => `\\p{L}{0,60}z${i}`;

const refs = (sources: string[]): PatternRef[] => sources.map((source, index) => ({ ruleId: 'r', index, source }));

/** A check reduced to what the table states: status, the culprit's index, the invalid patterns' indexes. */
function summary(c: RuleSetCheck): { status: string; culprit?: number; invalid: number[] } {
  const invalid = c.invalid.map((p) => p.ref.index);
  return c.status === 'too_large' ? { status: c.status, culprit: c.culprit.index, invalid } : { status: c.status, invalid };
}

describe('checkRuleSet (the bounded compile of a tenant pattern set)', () => {
  const rows: [string, string[], { maxIssues?: number }, ReturnType<typeof summary>][] = [
    ['no patterns', [], {}, { status: 'ok', invalid: [] }],
    ['ordinary patterns', ['order\\s*#?(\\d{4,})', '(复位|重置)(按钮|键)', '(错误|报警)码\\s*[A-Z]?\\d+'], {}, { status: 'ok', invalid: [] }],
    ['a syntax error is named and left out', ['ok', '([a-z'], {}, { status: 'ok', invalid: [1] }],
    ['every syntax error is named (backreference, lookahead)', ['(a)\\1', 'fine', '(?=x)'], {}, { status: 'ok', invalid: [0, 2] }],
    ['the issue pattern alone exceeds the program-size limit', [HUGE], {}, { status: 'too_large', culprit: 0, invalid: [] }],
    ['the first pattern that tips the set over is the culprit', ['a', 'b', HUGE, 'c'], {}, { status: 'too_large', culprit: 2, invalid: [] }],
    ['a pattern too large even alone', ['x', '\\p{L}{0,1000}'], {}, { status: 'too_large', culprit: 1, invalid: [] }],
    ['syntax errors before the culprit are named too', ['([a-z', 'ok', HUGE], {}, { status: 'too_large', culprit: 2, invalid: [0] }],
    ['the search stops after maxIssues invalid patterns', ['(', ')', '[', 'ok'], { maxIssues: 2 }, { status: 'too_many_invalid', invalid: [0, 1] }],
  ];
  it.each(rows)('%s', (_name, sources, opts, expected) => {
    expect(summary(checkRuleSet(refs(sources), opts))).toEqual(expected);
  });

  it('names a pattern that fits alone when the set of them does not (the tenant set is the unit)', () => {
    const sources = [0, 1, 2, 3].map(MEDIUM);
    for (const s of sources) expect(checkRuleSet(refs([s])).status).toBe('ok');
    const result = checkRuleSet(refs(sources));
    expect(result.status).toBe('too_large');
    if (result.status !== 'too_large') return;
    expect(result.culprit.index).toBeGreaterThan(0);
    expect(result.reason).toContain('program-size limit');
    // Everything before the culprit compiles as one set: that is what the write would have been without it.
    expect(checkRuleSet(refs(sources.slice(0, result.culprit.index))).status).toBe('ok');
  });

  it('a larger maxMem is a larger bound (the limit is the only thing refusing the issue pattern)', () => {
    expect(checkRuleSet(refs([HUGE]), { maxMem: 64 << 20 }).status).toBe('ok');
    expect(() => compilePatternSet([HUGE])).toThrow('RE2.Set could not be compiled.');
  });

  it('servedPatterns lists the enabled rules patterns in rule order', () => {
    const rules = [
      rule({ id: 'a', intent: 'a', patterns: ['x', 'y'] }),
      rule({ id: 'b', intent: 'b', patterns: ['z'], enabled: false }),
      rule({ id: 'c', intent: 'c', patterns: ['w'] }),
    ];
    expect(servedPatterns(rules).map((p) => patternKey(p))).toEqual(['a#0', 'a#1', 'c#0']);
  });
});

describe('RuleMatcher with a checked set', () => {
  const rules = [rule({ id: 'kw', intent: 'reset', keywords: ['reset'] }), rule({ id: 'rx', intent: 'order', patterns: ['order\\s*#?(\\d{4,})', '(oops'] })];

  it('regexDisabled: compiles no pattern, keywords still match, the reason is kept', () => {
    const m = RuleMatcher.compile(rules, { regexDisabled: 'too large' });
    expect(m.patternCount).toBe(0);
    expect(m.regexDisabled).toBe('too large');
    expect(m.match('please reset')?.ruleId).toBe('kw');
    expect(m.match('order #12345')).toBeNull();
  });

  it('excludedPatterns: the named patterns are left out, the rest serve', () => {
    const m = RuleMatcher.compile(rules, { excludedPatterns: new Set(['rx#1']) });
    expect(m.patternCount).toBe(1);
    expect(m.invalidPatterns).toEqual([]);
    expect(m.match('order #12345')?.ruleId).toBe('rx');
  });

  it("skip: a set over the limit turns the regex stage off instead of throwing; throw (the default) throws RE2's error", () => {
    const big = [rule({ id: 'kw', intent: 'reset', keywords: ['reset'] }), rule({ id: 'h', intent: 'q200', patterns: [HUGE] })];
    const m = RuleMatcher.compile(big, { onInvalidPattern: 'skip' });
    expect(m.regexDisabled).toContain('does not compile');
    expect(m.patternCount).toBe(0);
    expect(m.match('reset')?.ruleId).toBe('kw');
    expect(() => RuleMatcher.compile(big)).toThrow('RE2.Set could not be compiled.');
  });

  it('the route trace says when the regex stage is off, and only then', async () => {
    const off = await IntentRouter.compile(rules, { regexDisabled: 'too large' }).route('please reset', config());
    expect(off.routeTrace.ruleStage).toEqual({ regex: 'disabled', reason: 'too large' });
    expect(off.ruleId).toBe('kw');
    const on = await IntentRouter.compile(rules, { onInvalidPattern: 'skip' }).route('please reset', config());
    expect(on.routeTrace.ruleStage).toBeUndefined();
  });
});
