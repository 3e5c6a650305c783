import { describe, expect, it } from '@jest/globals';
import { AhoCorasick } from './aho-corasick.js';
import { RuleMatcher } from './rule-matcher.js';
import { IntentRuleValidationError } from './rule-validation.js';
import { rule } from './testing/fixtures.js';

describe('AhoCorasick', () => {
  it('finds every occurrence, including overlapping and nested keywords', () => {
    const ac = new AhoCorasick(['he', 'she', 'his', 'hers']);
    const hits: [number, number][] = [];
    ac.scan('ushers', (h) => hits.push([h.keyword, h.end]));
    expect(hits.sort()).toEqual([
      [0, 4],
      [1, 4],
      [3, 6],
    ]);
  });

  it('handles CJK keywords and no match', () => {
    const ac = new AhoCorasick(['退款', '机械臂']);
    const hits: number[] = [];
    ac.scan('我的机械臂坏了', (h) => hits.push(h.keyword));
    expect(hits).toEqual([1]);
    ac.scan('hello', (h) => hits.push(h.keyword));
    expect(hits).toEqual([1]);
  });
});

describe('RuleMatcher', () => {
  it('matches keywords case-insensitively as substrings and reports the AC-112 fields', () => {
    const m = RuleMatcher.compile([rule({ id: 'R1', intent: 'refund', keywords: ['Refund'] })]);
    const hit = m.match('I want a REFUND now');
    expect(hit).toMatchObject({ ruleId: 'R1', intent: 'refund', matchType: 'keyword', matchedText: 'Refund', score: 1 });
    expect(hit?.durationMs).toBeGreaterThanOrEqual(0);
    expect(m.match('refunded')?.intent).toBe('refund');
    expect(m.match('nothing here')).toBeNull();
  });

  it('matches regex patterns case-insensitively and reports the matched text', () => {
    const m = RuleMatcher.compile([rule({ id: 'R2', intent: 'order_status', patterns: ['order\\s*#?(\\d{4,})'] })]);
    expect(m.match('Where is ORDER #12345?')).toMatchObject({
      ruleId: 'R2',
      matchType: 'regex',
      matchedText: 'ORDER #12345',
      matchedBy: 'order\\s*#?(\\d{4,})',
    });
    expect(m.match('order 12')).toBeNull();
  });

  it('matches Chinese keywords and patterns', () => {
    const m = RuleMatcher.compile([rule({ intent: 'arm_fault', keywords: ['机械臂'] }), rule({ intent: 'error_code', patterns: ['错误码\\s*E\\d+'] })]);
    expect(m.match('机械臂不动了')?.intent).toBe('arm_fault');
    expect(m.match('报错误码 e42 怎么办')).toMatchObject({ intent: 'error_code', matchedText: '错误码 e42' });
  });

  const precedence: [string, Parameters<typeof rule>[0][], string, string][] = [
    [
      'higher priority beats a longer match',
      [
        { id: 'long', intent: 'x', keywords: ['cancel my subscription'], priority: 0 },
        { id: 'short', intent: 'y', keywords: ['cancel'], priority: 5 },
      ],
      'please cancel my subscription',
      'short',
    ],
    [
      'equal priority: the longest match wins',
      [
        { id: 'short', intent: 'y', keywords: ['cancel'] },
        { id: 'long', intent: 'x', keywords: ['cancel my subscription'] },
      ],
      'please cancel my subscription',
      'long',
    ],
    [
      'a longer regex match beats a shorter keyword',
      [
        { id: 'kw', intent: 'y', keywords: ['card'] },
        { id: 're', intent: 'x', patterns: ['lost\\s+(my\\s+)?card'] },
      ],
      'I lost my card',
      're',
    ],
    [
      'a high-priority regex beats a long keyword',
      [
        { id: 'kw', intent: 'y', keywords: ['lost my card yesterday'] },
        { id: 're', intent: 'x', patterns: ['card'], priority: 3 },
      ],
      'I lost my card yesterday',
      're',
    ],
    [
      'full tie: the earlier rule wins',
      [
        { id: 'first', intent: 'x', keywords: ['help'] },
        { id: 'second', intent: 'y', keywords: ['HELP'] },
      ],
      'help me',
      'first',
    ],
  ];
  it.each(precedence)('%s', (_n, rules, message, winner) => {
    expect(RuleMatcher.compile(rules.map((r) => rule(r))).match(message)?.ruleId).toBe(winner);
  });

  it('ignores disabled rules and blank keywords', () => {
    const m = RuleMatcher.compile([rule({ intent: 'x', keywords: ['help', '  '], enabled: false }), rule({ intent: 'y', keywords: [' '] })]);
    expect(m.keywordCount).toBe(0);
    expect(m.match('help')).toBeNull();
  });

  it('runs a catastrophic pattern in linear time: (a+)+$ on 30 a and !', () => {
    const m = RuleMatcher.compile([rule({ intent: 'evil', patterns: ['(a+)+$'] })]);
    // A backtracking engine needs ~2^30 steps for the first and never finishes the second; the bound is only
    // a ceiling against that hang (docs/CONVENTIONS.md: speed is measured by bench:intent:speed).
    const start = performance.now();
    expect(m.match(`${'a'.repeat(30)}!`)).toBeNull();
    expect(m.match(`${'a'.repeat(100_000)}!`)).toBeNull();
    expect(performance.now() - start).toBeLessThan(5_000);
    expect(m.match('aaa')?.matchedText).toBe('aaa');
  });

  it('rejects an invalid pattern with a typed error naming it', () => {
    const compile = (): RuleMatcher => RuleMatcher.compile([rule({ id: 'bad', intent: 'x', patterns: ['ok', '(unclosed'] })]);
    expect(compile).toThrow(IntentRuleValidationError);
    try {
      compile();
    } catch (e) {
      expect(e).toBeInstanceOf(IntentRuleValidationError);
      const issues = (e as IntentRuleValidationError).issues;
      expect(issues).toEqual([expect.objectContaining({ code: 'invalid_pattern', pattern: '(unclosed', field: 'rules[bad].patterns[1]' })]);
    }
  });

  it('rejects backreferences and lookbehind (not linear-time) and can skip them on request', () => {
    expect(() => RuleMatcher.compile([rule({ intent: 'x', patterns: ['(a)\\1'] })])).toThrow(IntentRuleValidationError);
    const m = RuleMatcher.compile([rule({ intent: 'x', patterns: ['(?<=a)b', 'b'] })], { onInvalidPattern: 'skip' });
    expect(m.patternCount).toBe(1);
    expect(m.invalidPatterns).toHaveLength(1);
    expect(m.match('ab')?.matchedText).toBe('b');
  });

  it('matches the right rule among 1,000 (their speed is bench:intent:speed)', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x`);
    const rules = Array.from({ length: 1000 }, (_, i) =>
      rule({
        intent: `i${i % 100}`,
        keywords: [words[i * 3], `${words[i * 3 + 1]} ${words[i * 3 + 2]}`],
        patterns: i % 3 === 0 ? [`\\b${words[i * 3 + 2]}\\s+\\d{${3 + (i % 4)},}`] : [],
        priority: i % 7,
      }),
    );
    const m = RuleMatcher.compile(rules);
    expect(m.keywordCount).toBe(2000);
    // A rule's own single keyword, alone in a message, routes to that rule whatever its position in the set.
    for (const r of [0, 1, 2, 499, 500, 997, 998, 999]) {
      expect(m.match(`could you help, ${words[r * 3]} please`)).toMatchObject({ intent: `i${r % 100}`, matchType: 'keyword', matchedText: words[r * 3] });
    }
    expect(m.match('nothing here matches any rule')).toBeNull();
  });
});
