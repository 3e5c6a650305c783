import { describe, expect, it } from '@jest/globals';
import { findUnsafeInput, MAX_JSON_DEPTH, UNSAFE_INPUT_MESSAGES, unsafeStringProblem } from './input-safety.js';

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
