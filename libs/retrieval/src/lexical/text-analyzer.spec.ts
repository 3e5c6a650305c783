import { describe, expect, it } from '@jest/globals';
import { analyzeText, queryTerms } from './text-analyzer.js';

describe('lexical analyzer', () => {
  it.each([
    { text: 'Resetting the robot arms', terms: ['reset', 'robot', 'arm'] },
    { text: 'How do I reset it?', terms: ['reset'] },
    { text: 'Error E201 on axis 3', terms: ['error', 'e201', 'axi', '3'] },
    { text: 'ＡＢＣ　Ｄｅｆ', terms: ['abc', 'def'] }, // NFKC: full-width folds
    { text: 'the screen is not lighting up', terms: ['screen', 'not', 'light'] }, // negations stay
    { text: '!!! ??? 😀', terms: [] },
    { text: 'of the and', terms: [] },
  ])('$text → $terms', ({ text, terms }) => {
    expect(analyzeText(text)).toEqual(terms);
  });

  it('segments Chinese with sub-words and bigrams, without stop words', () => {
    const terms = analyzeText('示教器屏幕不亮了');
    expect(terms).toEqual(expect.arrayContaining(['示教器', '屏幕', '~示教', '~不亮', '~亮了']));
    expect(terms).not.toContain('了');
    // A paraphrase shares terms through its bigrams even when segmentation differs.
    const other = new Set(analyzeText('示教器黑屏不亮'));
    expect(terms.filter((t) => other.has(t)).length).toBeGreaterThanOrEqual(3);
  });

  it('handles mixed Chinese and English', () => {
    expect(analyzeText('机械臂 reset 失败')).toEqual(expect.arrayContaining(['机械', '~械臂', 'reset', '失败']));
  });

  it('counts repeats in query terms', () => {
    expect(queryTerms('reset reset arm')).toEqual(
      new Map([
        ['reset', 2],
        ['arm', 1],
      ]),
    );
  });
});
