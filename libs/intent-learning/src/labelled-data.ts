/**
 * Labelled examples as uploaded (docs/decision-log.md "Labelled data"): JSONL (`{"text": ..., "intent": "<name>" | null}`
 * per line, null = out of scope) or a JSON array of the same objects. Pure: no Nest, no database. Every
 * line is checked; the errors name the line (`line 3.text`) or the array position (`examples[2].intent`).
 */
import { unsafeStringProblem, type FieldError } from '@arbiter/common';

export interface LabelledExampleInput {
  /** 1-based line of the JSONL body, or 1-based position in the JSON array. */
  line: number;
  text: string;
  intent: string | null;
}

export const LABELLED_LIMITS = {
  /** Examples per uploaded set version. */
  examples: 50_000,
  /** Characters of an example's text (the routed message limit). */
  textLength: 4000,
  /** Characters of an intent name (intent_rule.intent). */
  intentLength: 100,
  nameLength: 100,
  /** Field errors reported in one 400 (the message says how many more there were). */
  reportedErrors: 50,
  /** Unknown intent names listed in one 400. */
  reportedIntents: 100,
} as const;

/** Name of the per-tenant set that collects operators' labels on logged decisions. */
export const REVIEW_SET_NAME = 'review';

/** A set name: 1–100 letters, digits, `_`, `-`, `.`, starting with a letter or digit. */
export const LABELLED_SET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

const KNOWN_KEYS = new Set(['text', 'intent']);
const NOT_BLANK = /\S/;

export interface ParsedExamples {
  examples: LabelledExampleInput[];
  errors: FieldError[];
  /** Offending fields beyond the reported ones. */
  moreErrors: number;
}

class ErrorList {
  readonly errors: FieldError[] = [];
  more = 0;
  add(field: string, error: string): void {
    if (this.errors.length < LABELLED_LIMITS.reportedErrors) this.errors.push({ field, errors: [error] });
    else this.more++;
  }
}

/** Checks one parsed item; returns the example or null (the errors went to `out`). */
function checkItem(item: unknown, at: string, line: number, out: ErrorList): LabelledExampleInput | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    out.add(at, 'must be an object {"text": string, "intent": string | null}');
    return null;
  }
  const o = item as Record<string, unknown>;
  let ok = true;
  for (const key of Object.keys(o)) {
    if (!KNOWN_KEYS.has(key)) {
      out.add(`${at}.${JSON.stringify(key).slice(1, -1).slice(0, 100)}`, `property ${key.slice(0, 100)} should not exist`);
      ok = false;
    }
  }
  const { text, intent } = o;
  if (typeof text !== 'string') {
    out.add(`${at}.text`, text === undefined ? 'text is required' : 'text must be a string');
    ok = false;
  } else if (!NOT_BLANK.test(text)) {
    out.add(`${at}.text`, 'text must not be blank');
    ok = false;
  } else if (text.length > LABELLED_LIMITS.textLength) {
    out.add(`${at}.text`, `text must be at most ${LABELLED_LIMITS.textLength} characters`);
    ok = false;
  } else {
    const problem = unsafeStringProblem(text);
    if (problem) {
      out.add(`${at}.text`, `text ${problem}`);
      ok = false;
    }
  }
  if (!('intent' in o)) {
    out.add(`${at}.intent`, 'intent is required (an intent name, or null for out of scope)');
    ok = false;
  } else if (intent !== null && typeof intent !== 'string') {
    out.add(`${at}.intent`, 'intent must be a string or null');
    ok = false;
  } else if (typeof intent === 'string') {
    const problem = checkIntentName(intent);
    if (problem) {
      out.add(`${at}.intent`, problem);
      ok = false;
    }
  }
  return ok ? { line, text: text as string, intent: intent as string | null } : null;
}

/** Why a label's intent name cannot be one (blank, too long, unsafe), or null. */
export function checkIntentName(intent: string): string | null {
  if (!NOT_BLANK.test(intent)) return 'intent must not be blank (use null for out of scope)';
  if (intent.length > LABELLED_LIMITS.intentLength) return `intent must be at most ${LABELLED_LIMITS.intentLength} characters`;
  const problem = unsafeStringProblem(intent);
  return problem ? `intent ${problem}` : null;
}

function finish(examples: LabelledExampleInput[], out: ErrorList, emptyField: string): ParsedExamples {
  if (examples.length === 0 && out.errors.length === 0) out.add(emptyField, 'must contain at least 1 example');
  return { examples: out.errors.length ? [] : examples, errors: out.errors, moreErrors: out.more };
}

/**
 * JSONL: one JSON object per line; blank lines (and a trailing newline) are skipped but counted, so
 * line numbers are those of the body. `\r\n` line ends are accepted.
 */
export function parseLabelledJsonl(body: string): ParsedExamples {
  const out = new ErrorList();
  const examples: LabelledExampleInput[] = [];
  const lines = body.split('\n');
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (!NOT_BLANK.test(raw)) continue;
    const line = i + 1;
    if (++count > LABELLED_LIMITS.examples) {
      out.add('body', `must contain at most ${LABELLED_LIMITS.examples} examples (line ${line} is one too many)`);
      break;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      out.add(`line ${line}`, 'is not valid JSON');
      continue;
    }
    const example = checkItem(parsed, `line ${line}`, line, out);
    if (example) examples.push(example);
  }
  return finish(examples, out, 'body');
}

/** A JSON array of example objects (`examples[i]`, 0-based in the field name; `line` is i + 1). */
export function checkLabelledArray(items: unknown, field = 'examples'): ParsedExamples {
  const out = new ErrorList();
  if (!Array.isArray(items)) {
    out.add(field, `${field} must be an array of {"text", "intent"} objects`);
    return finish([], out, field);
  }
  if (items.length > LABELLED_LIMITS.examples) {
    out.add(field, `${field} must contain at most ${LABELLED_LIMITS.examples} examples`);
    return finish([], out, field);
  }
  const examples: LabelledExampleInput[] = [];
  items.forEach((item, i) => {
    const example = checkItem(item, `${field}[${i}]`, i + 1, out);
    if (example) examples.push(example);
  });
  return finish(examples, out, field);
}

/** Intent names the examples use that are not in `known` (sorted, each once). */
export function unknownIntents(examples: readonly { intent: string | null }[], known: ReadonlySet<string>): string[] {
  const unknown = new Set<string>();
  for (const e of examples) if (e.intent !== null && !known.has(e.intent)) unknown.add(e.intent);
  return [...unknown].sort();
}
