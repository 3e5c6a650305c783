import { assertNever } from '@arbiter/common';
import { patternKey, type PatternProblem, type RuleIssue, type RuleMatcherOptions } from '../routing/index.js';
import type { RuleSetCheckOutcome } from './rule-set-checker.js';

/** Thrown when a check could not run at all (its thread crashed, or shutdown): the write fails as a server error. */
export class RuleSetCheckUnavailableError extends Error {
  override readonly name = 'RuleSetCheckUnavailableError';
}

function invalidIssue(problem: PatternProblem, prefix: string, stored: boolean): RuleIssue {
  const { ref, reason } = problem;
  return {
    field: `${prefix}patterns[${ref.index}]`,
    code: 'invalid_pattern',
    pattern: ref.source,
    message: `invalid pattern ${JSON.stringify(ref.source)}: ${reason}`,
    ...(stored ? { ruleId: ref.ruleId } : {}),
  };
}

/**
 * The 400 issues of a write-time check (empty: the write may proceed). `prefixOf(ruleId)` gives the field
 * prefix of a rule being written (`''` for a single rule, `rules[i].` in a bulk or draft set) and null for a
 * stored rule, which is named as `rules[<id>].patterns[j]`. `whole` is the field named when no pattern can
 * be (the time limit). Patterns of stored rules that do not compile alone are not the writer's problem: they
 * were stored before, are left out when serving, and do not fail the write. A set that exceeds the
 * program-size limit does, whichever rule tips it over: serving it would turn the tenant's regex stage off.
 */
export function writeCheckIssues(outcome: RuleSetCheckOutcome, prefixOf: (ruleId: string) => string | null, whole: string): RuleIssue[] {
  const changed = (problems: PatternProblem[]): RuleIssue[] =>
    problems.flatMap((p) => {
      const prefix = prefixOf(p.ref.ruleId);
      return prefix === null ? [] : [invalidIssue(p, prefix, false)];
    });
  switch (outcome.status) {
    case 'ok':
      return changed(outcome.invalid);
    case 'too_large': {
      const { culprit } = outcome;
      const prefix = prefixOf(culprit.ruleId);
      const issue: RuleIssue = {
        field: `${prefix ?? `rules[${culprit.ruleId}].`}patterns[${culprit.index}]`,
        code: 'rule_set_too_large',
        pattern: culprit.source,
        message: `pattern ${JSON.stringify(culprit.source)}${prefix === null ? ` of stored rule ${culprit.ruleId}` : ''}: ${outcome.reason}`,
        ...(prefix === null ? { ruleId: culprit.ruleId } : {}),
      };
      return [...changed(outcome.invalid), issue];
    }
    case 'too_many_invalid': {
      const issues = changed(outcome.invalid);
      return issues.length > 0
        ? issues
        : [
            {
              field: whole,
              code: 'invalid_pattern',
              message: `the tenant's stored rules hold more than ${outcome.invalid.length} invalid patterns; fix them first`,
            },
          ];
    }
    case 'timeout':
      return [
        {
          field: whole,
          code: 'rule_set_timeout',
          message: `the tenant's rule set with these patterns could not be compiled within the time limit (${outcome.timeoutMs} ms)`,
        },
      ];
    case 'failed':
      throw new RuleSetCheckUnavailableError(`the rule set could not be checked: ${outcome.reason}`);
    default:
      return assertNever(outcome);
  }
}

/**
 * How a tenant's stored rules are served after their check (libs/intent/src/routing/README.md "Regex rule sets"): patterns that
 * do not compile alone are left out; a set that exceeds the limits — or whose check hit the time limit or
 * could not run — is served without the regex stage (keywords, semantic matching and the classifier still
 * route), and the route trace says so (`routeTrace.ruleStage`).
 */
export function servingOptions(outcome: RuleSetCheckOutcome): Pick<RuleMatcherOptions, 'excludedPatterns' | 'regexDisabled'> {
  switch (outcome.status) {
    case 'ok':
      return outcome.invalid.length > 0 ? { excludedPatterns: new Set(outcome.invalid.map((p) => patternKey(p.ref))) } : {};
    case 'too_large':
      return {
        regexDisabled: `pattern ${JSON.stringify(outcome.culprit.source)} of rule ${outcome.culprit.ruleId} (patterns[${outcome.culprit.index}]): ${outcome.reason}`,
      };
    case 'too_many_invalid':
      return { regexDisabled: `more than ${outcome.invalid.length} stored patterns do not compile` };
    case 'timeout':
      return { regexDisabled: `compiling the tenant's pattern set exceeded the time limit (${outcome.timeoutMs} ms)` };
    case 'failed':
      return { regexDisabled: `the tenant's pattern set could not be checked: ${outcome.reason}` };
    default:
      return assertNever(outcome);
  }
}
