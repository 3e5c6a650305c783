import RE2 from 're2';
import type { IntentRuleDef } from './types.js';

export type RuleIssueCode =
  | 'invalid_pattern'
  | 'rule_set_too_large'
  | 'rule_set_timeout'
  | 'empty_rule'
  | 'empty_intent'
  | 'vector_dimension_mismatch'
  | 'vector_not_finite'
  | 'empty_keyword';

export interface RuleIssue {
  /** Dotted path, e.g. `patterns[2]`. */
  field: string;
  code: RuleIssueCode;
  message: string;
  /** The offending pattern for `invalid_pattern` and `rule_set_too_large`. */
  pattern?: string;
  /** The rule holding the pattern, when the issue is about a stored rule rather than the one being written. */
  ruleId?: string;
}

/** Thrown when a rule cannot be compiled; the HTTP layer maps it to 400 with `issues`. */
export class IntentRuleValidationError extends Error {
  override readonly name = 'IntentRuleValidationError';
  constructor(
    readonly issues: RuleIssue[],
    readonly ruleId?: string,
  ) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '));
  }
}

/** RE2 flags used for every tenant pattern: case-insensitive, Unicode. */
export const PATTERN_FLAGS = 'iu';

/** Compiles a tenant pattern with RE2 (linear time, no backtracking); throws a typed error naming it. */
export function compilePattern(pattern: string, field = 'pattern'): RE2 {
  try {
    return new RE2(pattern, PATTERN_FLAGS);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new IntentRuleValidationError([{ field, code: 'invalid_pattern', pattern, message: `invalid pattern ${JSON.stringify(pattern)}: ${reason}` }]);
  }
}

export interface RuleValidationOptions {
  /** Dimension of the tenant's embedding provider; `intentVector` must match it. */
  vectorDimension?: number;
  /**
   * Compile each pattern here (default true). The API passes false: a pattern can take ~0.2 s to compile, so
   * it checks the patterns with the tenant's whole set on a worker thread instead (`checkRuleSet`).
   */
  compilePatterns?: boolean;
}

/** Save-time validation of one rule. Returns every issue (empty array = valid). */
export function validateIntentRuleDef(
  rule: Pick<IntentRuleDef, 'intent' | 'keywords' | 'patterns' | 'semanticExamples' | 'intentVector'>,
  opts: RuleValidationOptions = {},
): RuleIssue[] {
  const issues: RuleIssue[] = [];
  if (rule.intent.trim() === '') issues.push({ field: 'intent', code: 'empty_intent', message: 'intent must not be empty' });
  rule.keywords.forEach((k, i) => {
    if (k.trim() === '') issues.push({ field: `keywords[${i}]`, code: 'empty_keyword', message: 'keyword must not be empty' });
  });
  rule.patterns.forEach((p, i) => {
    if (opts.compilePatterns === false) return;
    try {
      compilePattern(p, `patterns[${i}]`);
    } catch (e) {
      if (e instanceof IntentRuleValidationError) issues.push(...e.issues);
      else throw e;
    }
  });
  const v = rule.intentVector;
  if (v !== undefined && v.length > 0) {
    if (opts.vectorDimension !== undefined && v.length !== opts.vectorDimension) {
      issues.push({
        field: 'intentVector',
        code: 'vector_dimension_mismatch',
        message: `intentVector has ${v.length} dimensions, the embedding provider has ${opts.vectorDimension}`,
      });
    }
    if (!v.every((x) => Number.isFinite(x))) {
      issues.push({ field: 'intentVector', code: 'vector_not_finite', message: 'intentVector must hold finite numbers' });
    }
  }
  const hasSomething =
    rule.keywords.some((k) => k.trim() !== '') ||
    rule.patterns.length > 0 ||
    rule.semanticExamples.some((s) => s.trim() !== '') ||
    (v !== undefined && v.length > 0);
  if (!hasSomething) {
    issues.push({
      field: 'rule',
      code: 'empty_rule',
      message: 'a rule needs at least one keyword, pattern, semantic example or intent vector',
    });
  }
  return issues;
}
