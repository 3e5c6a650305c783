import { describe, expect, it } from '@jest/globals';
import { checkLabelledArray, LABELLED_LIMITS, LABELLED_SET_NAME, parseLabelledJsonl, unknownIntents } from './labelled-data.js';

describe('parseLabelledJsonl', () => {
  it('reads one example per line; null is out of scope; blank lines and CRLF are fine; lines keep their numbers', () => {
    const body = '{"text":"reset the arm","intent":"reset"}\r\n\n  \n{"text":"what is the weather","intent":null}\n';
    expect(parseLabelledJsonl(body)).toEqual({
      examples: [
        { line: 1, text: 'reset the arm', intent: 'reset' },
        { line: 4, text: 'what is the weather', intent: null },
      ],
      errors: [],
      moreErrors: 0,
    });
  });

  it.each([
    ['not JSON', '{"text": "a", "intent": "x"', 'line 1', 'is not valid JSON'],
    ['an array line', '["a", "x"]', 'line 1', 'must be an object'],
    ['a string line', '"just text"', 'line 1', 'must be an object'],
    ['text missing', '{"intent":"x"}', 'line 1.text', 'text is required'],
    ['text a number', '{"text":5,"intent":"x"}', 'line 1.text', 'text must be a string'],
    ['blank text', '{"text":"  \\t","intent":"x"}', 'line 1.text', 'must not be blank'],
    ['text too long', JSON.stringify({ text: 'a'.repeat(LABELLED_LIMITS.textLength + 1), intent: 'x' }), 'line 1.text', 'at most 4000'],
    ['NUL in text', '{"text":"a\\u0000b","intent":"x"}', 'line 1.text', 'NUL'],
    ['lone surrogate in text', '{"text":"a\\ud800","intent":"x"}', 'line 1.text', 'surrogate'],
    ['intent missing', '{"text":"a"}', 'line 1.intent', 'intent is required'],
    ['intent a number', '{"text":"a","intent":3}', 'line 1.intent', 'string or null'],
    ['blank intent', '{"text":"a","intent":" "}', 'line 1.intent', 'use null for out of scope'],
    ['intent too long', JSON.stringify({ text: 'a', intent: 'i'.repeat(101) }), 'line 1.intent', 'at most 100'],
    ['unknown key', '{"text":"a","intent":"x","label":"y"}', 'line 1.label', 'should not exist'],
  ])('%s → the field of that line is named', (_name, line, field, error) => {
    const parsed = parseLabelledJsonl(line);
    expect(parsed.examples).toEqual([]);
    expect(parsed.errors.map((e) => e.field)).toEqual([field]);
    expect(parsed.errors[0]!.errors.join(' ')).toContain(error);
  });

  it('checks every line and names each bad one by its line number (nothing is kept when one is bad)', () => {
    const body = ['{"text":"ok","intent":"a"}', 'oops', '{"text":"ok","intent":"a"}', '', '{"text":"","intent":"a"}'].join('\n');
    const parsed = parseLabelledJsonl(body);
    expect(parsed.errors.map((e) => e.field)).toEqual(['line 2', 'line 5.text']);
    expect(parsed.examples).toEqual([]);
  });

  it('an empty body (or only blank lines) is an error', () => {
    expect(parseLabelledJsonl('\n \n').errors).toEqual([{ field: 'body', errors: ['must contain at least 1 example'] }]);
  });

  it('reports at most 50 errors and counts the rest', () => {
    const parsed = parseLabelledJsonl(Array.from({ length: 80 }, () => 'x').join('\n'));
    expect(parsed.errors).toHaveLength(LABELLED_LIMITS.reportedErrors);
    expect(parsed.errors[49]!.field).toBe('line 50');
    expect(parsed.moreErrors).toBe(30);
  });

  it('refuses more than the example limit, naming the first line too many', () => {
    const line = '{"text":"a","intent":null}';
    const parsed = parseLabelledJsonl(Array.from({ length: LABELLED_LIMITS.examples + 1 }, () => line).join('\n'));
    expect(parsed.errors).toEqual([{ field: 'body', errors: [`must contain at most ${LABELLED_LIMITS.examples} examples (line 50001 is one too many)`] }]);
  });
});

describe('checkLabelledArray', () => {
  it('reads an array; line is the 1-based position', () => {
    expect(
      checkLabelledArray([
        { text: 'a', intent: 'x' },
        { text: 'b', intent: null },
      ]).examples,
    ).toEqual([
      { line: 1, text: 'a', intent: 'x' },
      { line: 2, text: 'b', intent: null },
    ]);
  });

  it.each([
    ['not an array', { text: 'a' }, ['examples']],
    ['empty', [], ['examples']],
    ['bad items', [{ text: 'a', intent: 'x' }, null, { text: 1, intent: 'x' }], ['examples[1]', 'examples[2].text']],
  ])('%s → 400 naming the fields', (_name, items, fields) => {
    expect(checkLabelledArray(items).errors.map((e) => e.field)).toEqual(fields);
  });
});

describe('unknownIntents', () => {
  it('lists the names not known, once each, sorted; null (out of scope) is always fine', () => {
    const examples = [{ intent: 'b' }, { intent: null }, { intent: 'zz' }, { intent: 'a' }, { intent: 'zz' }];
    expect(unknownIntents(examples, new Set(['b']))).toEqual(['a', 'zz']);
    expect(unknownIntents(examples, new Set(['a', 'b', 'zz']))).toEqual([]);
  });
});

describe('LABELLED_SET_NAME', () => {
  it.each([
    ['clinc150-train', true],
    ['v1.2_final', true],
    ['', false],
    ['-starts-with-dash', false],
    ['has space', false],
    ['a'.repeat(101), false],
  ])('%s → %s', (name, ok) => {
    expect(LABELLED_SET_NAME.test(name)).toBe(ok);
  });
});
