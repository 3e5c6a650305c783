import RE2 from 're2';
import { PATTERN_FLAGS } from './rule-validation.js';
import type { IntentRuleDef } from './types.js';

type Re2Set = InstanceType<(typeof RE2)['Set']>;

/**
 * The RE2 program-size limit of one tenant's combined pattern set (`RE2.Set` `maxMem`, bytes): the compiled
 * program plus the DFA it matches with must fit. 8 MiB is the `re2` package's default, i.e. what was served
 * before the limit was explicit, so every rule set that was served keeps being served. Measured on this
 * machine kind (libs/intent/src/routing/README.md "Regex rule sets"): ~2,000–6,700 ordinary patterns fit; one `\p{L}{0,200}z`
 * does not (its case-folded Unicode letter class repeated 200 times); the largest set that fits compiles in
 * ≤ ~100 ms.
 */
export const RULE_SET_MAX_MEM = 8 << 20;

/** At most this many individually invalid patterns are named; beyond it the search stops (`too_many_invalid`). */
export const RULE_SET_MAX_ISSUES = 100;

/** One served pattern: the rule it belongs to and its index in that rule's `patterns`. */
export interface PatternRef {
  ruleId: string;
  index: number;
  source: string;
}

/** A pattern the check left out, with RE2's reason. */
export interface PatternProblem {
  ref: PatternRef;
  reason: string;
}

/**
 * The outcome of compiling a tenant's whole pattern set as it is served:
 * - `ok`: the set compiles within {@link RULE_SET_MAX_MEM}; `invalid` lists patterns that do not compile alone
 *   (left out when serving stored rules, refused when writing);
 * - `too_large`: adding `culprit` (in set order) makes the set exceed the limit — nothing from it on can be served
 *   in one set;
 * - `too_many_invalid`: more than {@link RULE_SET_MAX_ISSUES} invalid patterns (the search stopped).
 */
export type RuleSetCheck =
  | { status: 'ok'; invalid: PatternProblem[] }
  | { status: 'too_large'; culprit: PatternRef; reason: string; invalid: PatternProblem[] }
  | { status: 'too_many_invalid'; invalid: PatternProblem[] };

/** The patterns of the enabled rules, in rule order: the set `RuleMatcher` compiles. */
export function servedPatterns(rules: readonly Pick<IntentRuleDef, 'id' | 'enabled' | 'patterns'>[]): PatternRef[] {
  const refs: PatternRef[] = [];
  for (const rule of rules) {
    if (!rule.enabled) continue;
    rule.patterns.forEach((source, index) => refs.push({ ruleId: rule.id, index, source }));
  }
  return refs;
}

/** The key of a pattern in {@link RuleMatcherOptions.excludedPatterns}. */
export function patternKey(ref: Pick<PatternRef, 'ruleId' | 'index'>): string {
  return `${ref.ruleId}#${ref.index}`;
}

/** Compiles the set `RuleMatcher` serves (same flags, same limit); throws RE2's error. */
export function compilePatternSet(sources: readonly string[], maxMem = RULE_SET_MAX_MEM): Re2Set {
  return new RE2.Set(sources, PATTERN_FLAGS, { maxMem });
}

/** RE2's message when a set parses but its program exceeds `maxMem` (lib/set.cc of the `re2` package). */
const SET_TOO_LARGE = 'RE2.Set could not be compiled.';

/** RE2's message; not `instanceof Error` alone, since the native addon's errors may come from another realm (jest's VM). */
function messageOf(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string') return e.message;
  return String(e);
}

function setError(sources: readonly string[], maxMem: number): string | null {
  if (sources.length === 0) return null;
  try {
    compilePatternSet(sources, maxMem);
    return null;
  } catch (e) {
    return messageOf(e);
  }
}

/**
 * Compiles `patterns` as one RE2 set under `maxMem` and, when it fails, names why: a binary search over
 * prefixes (galloping, then bisecting) finds the first pattern whose addition fails (O(log n) set compiles,
 * each bounded by `maxMem` — a set that exceeds the limit fails as soon as it does). A pattern that does not parse is recorded and left
 * out, and the search goes on; the first pattern that parses but exceeds the limit ends it (`too_large`).
 * When the set compiles, each pattern is also compiled alone (the matcher keeps one `RE2` per pattern for the
 * matched text), which the set's limit bounds too. Synchronous and CPU-bound: run it off the event loop
 * (the API runs it on a worker thread, libs/intent/src/routing/README.md "Regex rule sets").
 */
export function checkRuleSet(patterns: readonly PatternRef[], opts: { maxMem?: number; maxIssues?: number } = {}): RuleSetCheck {
  const maxMem = opts.maxMem ?? RULE_SET_MAX_MEM;
  const maxIssues = opts.maxIssues ?? RULE_SET_MAX_ISSUES;
  const live = [...patterns];
  const invalid: PatternProblem[] = [];
  // Patterns before this index are known to compile together (so a search resumes after the last culprit).
  let knownOk = 0;
  for (;;) {
    const sources = live.map((p) => p.source);
    const whole = setError(sources, maxMem);
    if (whole === null) break;
    // Invariant: the prefix of length `ok` compiles, the prefix of length `bad` fails with `error`. Gallop
    // from `ok` (prefixes ok+1, ok+3, ok+7, …) before bisecting: a culprit near the start costs a few small
    // compiles instead of several of half the set, and the cost of the passing probes sums to ≤ 2 set compiles.
    let ok = knownOk;
    let bad = live.length;
    let error = whole;
    for (let step = 1; ok + step < bad; step *= 2) {
      const probe = ok + step;
      const e = setError(sources.slice(0, probe), maxMem);
      if (e === null) ok = probe;
      else {
        bad = probe;
        error = e;
        break;
      }
    }
    while (bad - ok > 1) {
      const mid = (ok + bad) >>> 1;
      const e = setError(sources.slice(0, mid), maxMem);
      if (e === null) ok = mid;
      else {
        bad = mid;
        error = e;
      }
    }
    const culprit = live[bad - 1]!;
    if (error === SET_TOO_LARGE) {
      return {
        status: 'too_large',
        culprit,
        reason: `the tenant's rule set would not compile with this pattern: it exceeds the RE2 program-size limit (${maxMem / (1 << 20)} MiB for all the tenant's patterns together)`,
        invalid,
      };
    }
    invalid.push({ ref: culprit, reason: error });
    if (invalid.length >= maxIssues) return { status: 'too_many_invalid', invalid };
    live.splice(bad - 1, 1);
    knownOk = bad - 1;
  }
  for (const ref of live) {
    try {
      new RE2(ref.source, PATTERN_FLAGS);
    } catch (e) {
      invalid.push({ ref, reason: messageOf(e) });
      if (invalid.length >= maxIssues) return { status: 'too_many_invalid', invalid };
    }
  }
  return { status: 'ok', invalid };
}
