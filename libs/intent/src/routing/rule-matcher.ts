import RE2 from 're2';
import { AhoCorasick } from './aho-corasick.js';
import { compilePattern, IntentRuleValidationError, type RuleIssue } from './rule-validation.js';
import { compilePatternSet, patternKey } from './rule-set-check.js';
import type { IntentRuleDef, RuleMatchResult, RuleMatchType } from './types.js';

type Re2Set = InstanceType<(typeof RE2)['Set']>;

interface Owner {
  ruleId: string;
  intent: string;
  priority: number;
  /** Position of the rule in the compiled list: the last tie-breaker, for determinism. */
  order: number;
}

interface KeywordEntry extends Owner {
  keyword: string;
}

interface PatternEntry extends Owner {
  source: string;
  re: RE2;
}

interface Candidate {
  owner: Owner;
  matchType: RuleMatchType;
  matchedText: string;
  matchedBy: string;
  length: number;
}

export interface RuleMatcherOptions {
  /**
   * `throw` (default): an invalid stored pattern fails the compile; `skip`: it is left out and listed, and a
   * combined set that does not compile turns the regex stage off (`regexDisabled`) instead of throwing.
   */
  onInvalidPattern?: 'throw' | 'skip';
  /** Patterns to leave out (`patternKey`): the off-thread check (`checkRuleSet`) found they do not compile alone. */
  excludedPatterns?: ReadonlySet<string>;
  /**
   * Serve without the regex stage (keywords still match), with this reason: the tenant's pattern set does not
   * compile within the limits (`checkRuleSet`), so no pattern is compiled here at all
   * (libs/intent/src/routing/README.md "Regex rule sets").
   */
  regexDisabled?: string;
}

/**
 * Keyword (case-insensitive substring, Aho–Corasick) and regex (RE2, linear time) matching over one
 * tenant's enabled rules. Compile once per rule set; `match` is synchronous and allocation-light.
 * Highest priority wins, then the longest match, then the rule order.
 */
export class RuleMatcher {
  private constructor(
    private readonly keywords: KeywordEntry[],
    private readonly automaton: AhoCorasick | null,
    private readonly patterns: PatternEntry[],
    private readonly patternSet: Re2Set | null,
    /** Patterns left out by `onInvalidPattern: 'skip'`. */
    readonly invalidPatterns: RuleIssue[],
    /** Why the regex stage is off (null: it serves). */
    readonly regexDisabled: string | null,
  ) {}

  static compile(rules: readonly IntentRuleDef[], opts: RuleMatcherOptions = {}): RuleMatcher {
    const keywords: KeywordEntry[] = [];
    const patterns: PatternEntry[] = [];
    const invalid: RuleIssue[] = [];
    const regexOff = opts.regexDisabled !== undefined;
    rules.forEach((rule, order) => {
      if (!rule.enabled) return;
      const owner: Owner = { ruleId: rule.id, intent: rule.intent, priority: rule.priority, order };
      for (const kw of rule.keywords) {
        const keyword = kw.trim();
        if (keyword !== '') keywords.push({ ...owner, keyword });
      }
      if (regexOff) return;
      rule.patterns.forEach((source, i) => {
        if (opts.excludedPatterns?.has(patternKey({ ruleId: rule.id, index: i })) === true) return;
        try {
          patterns.push({ ...owner, source, re: compilePattern(source, `rules[${rule.id}].patterns[${i}]`) });
        } catch (e) {
          if (!(e instanceof IntentRuleValidationError) || opts.onInvalidPattern !== 'skip') throw e;
          invalid.push(...e.issues);
        }
      });
    });
    const automaton = keywords.length > 0 ? new AhoCorasick(keywords.map((k) => k.keyword.toLowerCase())) : null;
    let patternSet: Re2Set | null = null;
    let regexDisabled = opts.regexDisabled ?? null;
    if (patterns.length > 0) {
      try {
        patternSet = compilePatternSet(patterns.map((p) => p.source));
      } catch (e) {
        if (opts.onInvalidPattern !== 'skip') throw e;
        regexDisabled = `the combined pattern set does not compile: ${e instanceof Error ? e.message : String(e)}`;
        patterns.length = 0;
      }
    }
    return new RuleMatcher(keywords, automaton, patterns, patternSet, invalid, regexDisabled);
  }

  get keywordCount(): number {
    return this.keywords.length;
  }

  get patternCount(): number {
    return this.patterns.length;
  }

  match(message: string): RuleMatchResult | null {
    const start = performance.now();
    let best: Candidate | null = null;
    const consider = (c: Candidate): void => {
      if (best === null || better(c, best)) best = c;
    };
    if (this.automaton !== null) {
      this.automaton.scan(message.toLowerCase(), (hit) => {
        const e = this.keywords[hit.keyword];
        consider({ owner: e, matchType: 'keyword', matchedText: e.keyword, matchedBy: e.keyword, length: e.keyword.length });
      });
    }
    if (this.patternSet !== null) {
      for (const idx of this.patternSet.match(message)) {
        const e = this.patterns[idx];
        const current = best as Candidate | null;
        if (current !== null && e.priority < current.owner.priority) continue;
        e.re.lastIndex = 0;
        const m = e.re.exec(message);
        if (m === null) continue;
        consider({ owner: e, matchType: 'regex', matchedText: m[0], matchedBy: e.source, length: m[0].length });
      }
    }
    const winner = best as Candidate | null;
    if (winner === null) return null;
    return {
      ruleId: winner.owner.ruleId,
      intent: winner.owner.intent,
      matchType: winner.matchType,
      matchedText: winner.matchedText,
      matchedBy: winner.matchedBy,
      score: 1,
      durationMs: performance.now() - start,
    };
  }
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.owner.priority !== b.owner.priority) return a.owner.priority > b.owner.priority;
  if (a.length !== b.length) return a.length > b.length;
  return a.owner.order < b.owner.order;
}
