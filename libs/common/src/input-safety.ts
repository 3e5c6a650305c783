import type { FieldError } from './validation.js';

/** Deepest nesting of arrays/objects accepted in a request body (the root object is level 1). */
export const MAX_JSON_DEPTH = 32;
/** Most keys one JSON object may have (docs/http-edge.md "Bodies"): a 10,000-key `metadata` is refused. */
export const MAX_OBJECT_KEYS = 1000;
/** At most this many offending fields are reported (the walk stops there). */
const MAX_REPORTED = 20;

export const UNSAFE_INPUT_MESSAGES = {
  nul: 'must not contain NUL (\\u0000) characters',
  surrogate: 'must not contain unpaired UTF-16 surrogates (invalid Unicode)',
  nonFinite: 'must be a finite number',
  depth: `must not nest arrays/objects more than ${MAX_JSON_DEPTH} levels deep`,
  keys: `must not have more than ${MAX_OBJECT_KEYS} keys`,
} as const;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * The path of the first array/object in JSON text (one document, or NDJSON lines) that nests deeper
 * than `maxDepth` — written as {@link findUnsafeInput} writes it (`extra[0][0]`, `body` for the root) —
 * or null. One pass over the characters before anything is parsed: `JSON.parse` of 60 MB of `[` would
 * allocate millions of arrays first (docs/http-edge.md "Bodies"). Malformed text is the parser's business.
 */
export function findExcessNesting(text: string, maxDepth = MAX_JSON_DEPTH): string | null {
  // Per open container: the key (object) or index (array) of the member being read.
  const keys: (string | number)[] = [];
  let inString = false;
  let stringStart = 0;
  let readingKey = false;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (readingKey) {
          keys[keys.length - 1] = decodeJsonString(text.slice(stringStart, i + 1));
          readingKey = false;
        }
      }
      continue;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        stringStart = i;
        readingKey = expectKey;
        expectKey = false;
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (keys.length >= maxDepth) return keys.reduce<string>((path, key) => childPath(path, key), '') || 'body';
        keys.push(c === OPEN_BRACKET ? 0 : '');
        expectKey = c === OPEN_BRACE;
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        keys.pop();
        expectKey = false;
        break;
      case COMMA: {
        const top = keys[keys.length - 1];
        if (typeof top === 'number') keys[keys.length - 1] = top + 1;
        else expectKey = top !== undefined;
        break;
      }
      default:
        break;
    }
  }
  return null;
}

function decodeJsonString(literal: string): string {
  if (!literal.includes('\\')) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal.slice(1, -1);
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as PostgreSQL text/jsonb (NUL byte, lone surrogate), or null when it can. */
export function unsafeStringProblem(value: string): string | null {
  if (value.includes('\u0000')) return UNSAFE_INPUT_MESSAGES.nul;
  if (LONE_SURROGATE.test(value)) return UNSAFE_INPUT_MESSAGES.surrogate;
  return null;
}

/** A key as it may appear in an error message: escaped when unsafe, cut when long. */
function printableKey(key: string): string {
  const printable = unsafeStringProblem(key) ? JSON.stringify(key).slice(1, -1) : key;
  return printable.length > 100 ? `${printable.slice(0, 100)}…` : printable;
}

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${printableKey(key)}` : printableKey(key);
}

/**
 * Finds what no endpoint can accept, before any DTO transformation runs: strings (values and keys)
 * with NUL bytes or unpaired surrogates (PostgreSQL rejects both), non-finite numbers (`1e309`
 * parses as Infinity), nesting deeper than `maxDepth` and objects with more than {@link MAX_OBJECT_KEYS} keys. Iterative, so a 10,000-level body cannot
 * overflow the stack; field paths are written like validation errors (`a.b[0].c`).
 */
export function findUnsafeInput(value: unknown, rootPath = '', maxDepth = MAX_JSON_DEPTH): FieldError[] {
  const found: FieldError[] = [];
  const report = (field: string, problem: string): void => {
    const existing = found.find((f) => f.field === field);
    if (existing) {
      if (!existing.errors.includes(problem)) existing.errors.push(problem);
    } else found.push({ field: field || 'body', errors: [problem] });
  };
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: rootPath, depth: 0 }];
  while (stack.length > 0 && found.length < MAX_REPORTED) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    const v = item.value;
    if (typeof v === 'string') {
      const problem = unsafeStringProblem(v);
      if (problem) report(item.path, problem);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) report(item.path, UNSAFE_INPUT_MESSAGES.nonFinite);
    } else if (v !== null && typeof v === 'object') {
      const depth = item.depth + 1;
      if (depth > maxDepth) {
        report(item.path, UNSAFE_INPUT_MESSAGES.depth);
        continue;
      }
      const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((e, i) => [i, e]) : Object.entries(v);
      if (!Array.isArray(v) && entries.length > MAX_OBJECT_KEYS) {
        report(item.path, UNSAFE_INPUT_MESSAGES.keys);
        continue;
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        const path = childPath(item.path, key);
        if (typeof key === 'string') {
          const problem = unsafeStringProblem(key);
          if (problem) report(path, `key ${problem}`);
        }
        stack.push({ value: child, path, depth });
      }
    }
  }
  return found;
}
