import { describe, expect, it } from '@jest/globals';
import { parseLabelledFile, parseLabelledPairs, splitList } from './labelled-file';

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

describe('parseLabelledPairs', () => {
  it('reads JSON Lines and a JSON array of the fit pairs; a blank or null filePath is no answer; pages and section kept', () => {
    expect(
      parseLabelledPairs(
        '{"query":"控制柜默认IP是多少","filePath":"controller/ethernet-connection.md"}\n\n{"query":"培训课程怎么报名","filePath":null}\r\n' +
          '{"query":"named pipes","filePath":"manual.pdf","pages":[48,49],"section":["1 Tutorials","1.2.8 Named pipes"]}\n{"query":"x","filePath":""}',
      ),
    ).toEqual({
      ok: true,
      pairs: [
        { query: '控制柜默认IP是多少', filePath: 'controller/ethernet-connection.md' },
        { query: '培训课程怎么报名', filePath: null },
        { query: 'named pipes', filePath: 'manual.pdf', pages: [48, 49], section: ['1 Tutorials', '1.2.8 Named pipes'] },
        { query: 'x', filePath: null },
      ],
    });
    expect(parseLabelledPairs('[{"query":"a"}]')).toEqual({ ok: true, pairs: [{ query: 'a', filePath: null }] });
  });

  it.each([
    ['  ', 1, 'empty'],
    ['{"query":"a","filePath":null}\n\n{"query":', 3, 'invalid JSON'],
    ['{"text":"a","intent":"b"}', 1, 'query must be a non-blank string'],
    ['{"query":"a","filePath":7}', 1, 'filePath must be a string or null'],
    ['{"query":"a","filePath":"m.pdf","pages":[0]}', 1, 'pages must be a list of whole numbers from 1'],
    ['{"query":"a","filePath":"m.pdf","pages":[1.5]}', 1, 'pages must be a list of whole numbers from 1'],
    ['{"query":"a","filePath":"m.pdf","section":["1", " "]}', 1, 'section must be a list of headings'],
    ['[{"query":"a"},"b"]', 2, 'not an object'],
  ])('%j → line %p: %p', (content, line, problem) => {
    expect(parseLabelledPairs(content)).toEqual({ ok: false, line, problem });
  });
});

describe('splitList', () => {
  it('splits keywords on commas (also the Chinese one) and examples on lines', () => {
    expect(splitList('重置, reset，复位\n', 'comma')).toEqual(['重置', 'reset', '复位']);
    expect(splitList('a, b\n\n c ', 'line')).toEqual(['a, b', 'c']);
  });
});
