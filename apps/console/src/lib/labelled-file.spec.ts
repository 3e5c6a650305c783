import { describe, expect, it } from '@jest/globals';
import { parseLabelledFile, splitList } from './labelled-file';

describe('parseLabelledFile', () => {
  it('reads JSON Lines, blank lines skipped, empty intent = out of scope', () => {
    expect(parseLabelledFile('{"text":"示教器黑屏","intent":"fault"}\n\n{"text":"hello","intent":""}\r\n{"text":"x","intent":null}')).toEqual({
      ok: true,
      examples: [
        { text: '示教器黑屏', intent: 'fault' },
        { text: 'hello', intent: null },
        { text: 'x', intent: null },
      ],
    });
  });

  it('reads a JSON array', () => {
    expect(parseLabelledFile('[{"text":"a","intent":"b"}]')).toEqual({ ok: true, examples: [{ text: 'a', intent: 'b' }] });
  });

  it.each([
    ['', 1, 'empty'],
    ['{"text":"a"}\n{oops', 2, 'invalid JSON'],
    ['{"text":"  ","intent":"b"}', 1, 'text must be a non-blank string'],
    ['{"text":"a","intent":3}', 1, 'intent must be a string or null'],
    ['[1]', 1, 'not an object'],
    ['[{"text":"a"}', 1, 'invalid JSON'],
  ])('%j → line %p: %p', (content, line, problem) => {
    expect(parseLabelledFile(content)).toEqual({ ok: false, line, problem });
  });
});

describe('splitList', () => {
  it('splits keywords on commas (also the Chinese one) and examples on lines', () => {
    expect(splitList('重置, reset，复位\n', 'comma')).toEqual(['重置', 'reset', '复位']);
    expect(splitList('a, b\n\n c ', 'line')).toEqual(['a, b', 'c']);
  });
});
