import { describe, expect, it } from '@jest/globals';
import { findUnsafeInput, findExcessNesting, MAX_JSON_DEPTH, MAX_OBJECT_KEYS, UNSAFE_INPUT_MESSAGES, unsafeStringProblem } from './input-safety.js';

function nestedArrays(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
function nestedObjects(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('unsafeStringProblem', () => {
  const rows: [string, string, string | null][] = [
    ['plain Chinese and English', '机械臂报警 E201 alarm', null],
    ['a paired surrogate (emoji)', 'ok 🤖', null],
    ['NUL', 'a\u0000b', UNSAFE_INPUT_MESSAGES.nul],
    ['lone high surrogate', 'a\ud800', UNSAFE_INPUT_MESSAGES.surrogate],
    ['lone low surrogate', '\udc00b', UNSAFE_INPUT_MESSAGES.surrogate],
    ['reversed pair', '\udc00\ud800', UNSAFE_INPUT_MESSAGES.surrogate],
    ['other control characters are fine', 'tab\there\r\n', null],
  ];
  it.each(rows)('%s', (_name, input, expected) => {
    expect(unsafeStringProblem(input)).toBe(expected);
  });
});

describe('findUnsafeInput', () => {
  it('accepts ordinary JSON', () => {
    expect(findUnsafeInput({ query: '示教器黑屏', references: [{ filePath: 'a.md', score: 0.8 }], metadata: { tags: ['x'], n: null, ok: true } })).toEqual([]);
  });

  const rows: [string, unknown, string, string][] = [
    ['NUL in a top-level field', { query: 'a\u0000' }, 'query', UNSAFE_INPUT_MESSAGES.nul],
    [
      'lone surrogate in an array item of a nested object',
      { references: [{ title: 'ok' }, { title: '\ud800' }] },
      'references[1].title',
      UNSAFE_INPUT_MESSAGES.surrogate,
    ],
    ['lone surrogate in json metadata', { metadata: { deep: { k: ['\udfff'] } } }, 'metadata.deep.k[0]', UNSAFE_INPUT_MESSAGES.surrogate],
    ['Infinity (JSON 1e309)', { metadata: { big: JSON.parse('1e309') as number } }, 'metadata.big', UNSAFE_INPUT_MESSAGES.nonFinite],
    ['-Infinity', { weights: { rule: -Infinity } }, 'weights.rule', UNSAFE_INPUT_MESSAGES.nonFinite],
    ['NUL in a key, escaped in the path', { metadata: { 'a\u0000b': 1 } }, 'metadata.a\\u0000b', `key ${UNSAFE_INPUT_MESSAGES.nul}`],
    ['a whole string body', 'x\u0000', 'body', UNSAFE_INPUT_MESSAGES.nul],
  ];
  it.each(rows)('%s', (_name, input, field, problem) => {
    expect(findUnsafeInput(input)).toEqual([{ field, errors: [problem] }]);
  });

  it(`allows ${MAX_JSON_DEPTH} levels and rejects one more, naming the field`, () => {
    expect(findUnsafeInput({ extra: nestedArrays(MAX_JSON_DEPTH - 1) })).toEqual([]);
    expect(findUnsafeInput({ extra: nestedArrays(MAX_JSON_DEPTH) })).toEqual([
      { field: `extra${'[0]'.repeat(MAX_JSON_DEPTH - 1)}`, errors: [UNSAFE_INPUT_MESSAGES.depth] },
    ]);
  });

  it('walks 10,000 nested arrays and 3,000 nested objects without overflowing the stack', () => {
    const arrays = JSON.parse(`{"extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`) as unknown;
    expect(findUnsafeInput(arrays)[0].errors).toEqual([UNSAFE_INPUT_MESSAGES.depth]);
    expect(findUnsafeInput({ extra: nestedObjects(3_000) })[0].field).toMatch(/^extra(\.a)+$/);
  });

  it('reports every offending field, in document order, and caps the list', () => {
    expect(findUnsafeInput({ a: '\u0000', b: 'ok', c: ['\ud800'] }).map((f) => f.field)).toEqual(['a', 'c[0]']);
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, '\u0000']));
    expect(findUnsafeInput(many).length).toBeLessThanOrEqual(20);
  });

  it('cuts a long key in the reported path', () => {
    const [problem] = findUnsafeInput({ ['k'.repeat(5000)]: '\u0000' });
    expect(problem.field.length).toBeLessThan(110);
  });
});

describe('findUnsafeInput key count', () => {
  const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  it('accepts an object with the most keys allowed', () => {
    expect(findUnsafeInput({ metadata: wide(MAX_OBJECT_KEYS) })).toEqual([]);
  });
  it('refuses one key more, naming the object', () => {
    expect(findUnsafeInput({ metadata: wide(MAX_OBJECT_KEYS + 1) })).toEqual([{ field: 'metadata', errors: [UNSAFE_INPUT_MESSAGES.keys] }]);
  });
  it('counts keys per object, not array items', () => {
    expect(findUnsafeInput({ items: Array.from({ length: MAX_OBJECT_KEYS + 5 }, (_, i) => ({ i })) })).toEqual([]);
  });
});

describe('findExcessNesting', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const rows: [string, string, string | null][] = [
    ['flat object', '{"a":1,"b":[1,2,{"c":3}]}', null],
    ['exactly the limit', deep(MAX_JSON_DEPTH), null],
    ['one level more', deep(MAX_JSON_DEPTH + 1), '[0]'.repeat(MAX_JSON_DEPTH)],
    ['a root object one level too deep', '{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1), 'a' + '.a'.repeat(MAX_JSON_DEPTH - 1)],
    ['brackets inside strings do not count', JSON.stringify({ text: '['.repeat(100) }), null],
    ['an escaped quote does not end the string', JSON.stringify({ text: '\\"' + '['.repeat(100) }), null],
    ['NDJSON lines are counted one by one', Array.from({ length: 50 }, () => deep(10)).join('\n'), null],
    ['an unclosed run of [ is caught early', '{"x":' + '['.repeat(100_000), 'x' + '[0]'.repeat(MAX_JSON_DEPTH - 1)],
    ['the path names keys and indexes', `{"a":1,"list":[0,{"b\\u0021":${deep(MAX_JSON_DEPTH)}}]}`, 'list[1].b!' + '[0]'.repeat(MAX_JSON_DEPTH - 3)],
  ];
  it.each(rows)('%s', (_name, text, expected) => {
    expect(findExcessNesting(text)).toBe(expected);
  });

  it.each(rows.filter(([, text, expected]) => expected !== null && !text.endsWith('[')))(
    'names the field the walk over the parsed value names: %s',
    (_name, text) => {
      expect(findExcessNesting(text)).toBe(findUnsafeInput(JSON.parse(text))[0]?.field);
    },
  );
});
