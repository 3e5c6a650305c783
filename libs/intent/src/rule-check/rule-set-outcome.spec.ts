import { describe, expect, it } from '@jest/globals';
import type { PatternRef } from '../routing/rule-set-check.js';
import type { RuleSetCheckOutcome } from './rule-set-checker.js';
import { RuleSetCheckUnavailableError, servingOptions, writeCheckIssues } from './rule-set-outcome.js';

const written = (index: number, source: string): PatternRef => ({ ruleId: 'written:0', index, source });
const stored = (index: number, source: string): PatternRef => ({ ruleId: 'r-stored', index, source });
/** A single-rule write: the written rule's fields have no prefix; stored rules are not the writer's. */
const prefixOf = (ruleId: string): string | null => (ruleId === 'written:0' ? '' : null);
const TOO_LARGE = 'exceeds the RE2 program-size limit';

describe('writeCheckIssues (the 400 of a rule write)', () => {
  const rows: [string, RuleSetCheckOutcome, { field: string; code: string; ruleId?: string }[]][] = [
    ['ok: nothing to say', { status: 'ok', invalid: [] }, []],
    [
      "ok with invalid patterns: the written rule's are named, the stored rules' are not the writer's",
      {
        status: 'ok',
        invalid: [
          { ref: written(1, '(x'), reason: 'missing )' },
          { ref: stored(0, '(y'), reason: 'missing )' },
        ],
      },
      [{ field: 'patterns[1]', code: 'invalid_pattern' }],
    ],
    [
      'too large at a written pattern: patterns[j]',
      { status: 'too_large', culprit: written(0, 'p'), reason: TOO_LARGE, invalid: [] },
      [{ field: 'patterns[0]', code: 'rule_set_too_large' }],
    ],
    [
      'too large at a stored pattern: rules[<id>].patterns[j] with its ruleId',
      { status: 'too_large', culprit: stored(2, 'p'), reason: TOO_LARGE, invalid: [] },
      [{ field: 'rules[r-stored].patterns[2]', code: 'rule_set_too_large', ruleId: 'r-stored' }],
    ],
    ['timeout: the whole field', { status: 'timeout', timeoutMs: 5000 }, [{ field: 'patterns', code: 'rule_set_timeout' }]],
    ['too many invalid, none of them written: the whole field', { status: 'too_many_invalid', invalid: [] }, [{ field: 'patterns', code: 'invalid_pattern' }]],
  ];
  it.each(rows)('%s', (_name, outcome, expected) => {
    const issues = writeCheckIssues(outcome, prefixOf, 'patterns');
    expect(issues.map((i) => ({ field: i.field, code: i.code, ...(i.ruleId !== undefined ? { ruleId: i.ruleId } : {}) }))).toEqual(expected);
  });

  it('names the pattern and the limit in the message', () => {
    const [issue] = writeCheckIssues({ status: 'too_large', culprit: written(0, '\\p{L}{0,200}z'), reason: TOO_LARGE, invalid: [] }, prefixOf, 'patterns');
    expect(issue).toMatchObject({ pattern: '\\p{L}{0,200}z' });
    expect(issue!.message).toContain(JSON.stringify('\\p{L}{0,200}z'));
    expect(issue!.message).toContain(TOO_LARGE);
  });

  it('a check that could not run is a server error, not a 400', () => {
    expect(() => writeCheckIssues({ status: 'failed', reason: 'thread crashed' }, prefixOf, 'patterns')).toThrow(RuleSetCheckUnavailableError);
  });
});

describe('servingOptions (how stored rules are served after their check)', () => {
  const rows: [string, RuleSetCheckOutcome, { excluded?: string[]; disabled?: string }][] = [
    ['ok: everything serves', { status: 'ok', invalid: [] }, {}],
    ['ok with invalid patterns: those are left out', { status: 'ok', invalid: [{ ref: stored(1, '(y'), reason: 'missing )' }] }, { excluded: ['r-stored#1'] }],
    ['too large: no regex stage', { status: 'too_large', culprit: stored(0, 'p'), reason: TOO_LARGE, invalid: [] }, { disabled: TOO_LARGE }],
    ['too many invalid: no regex stage', { status: 'too_many_invalid', invalid: [] }, { disabled: 'do not compile' }],
    ['timeout: no regex stage', { status: 'timeout', timeoutMs: 5000 }, { disabled: 'time limit' }],
    ['check failed: no regex stage (never compiled on the event loop unchecked)', { status: 'failed', reason: 'crash' }, { disabled: 'could not be checked' }],
  ];
  it.each(rows)('%s', (_name, outcome, expected) => {
    const options = servingOptions(outcome);
    expect(options.excludedPatterns === undefined ? undefined : [...options.excludedPatterns]).toEqual(expected.excluded);
    if (expected.disabled === undefined) expect(options.regexDisabled).toBeUndefined();
    else expect(options.regexDisabled).toContain(expected.disabled);
  });
});
