import { describe, expect, it } from '@jest/globals';
import { analyzeText, CONTENT_WORDS, isStopWordTerm, queryTerms } from './text-analyzer.js';

describe('lexical analyzer', () => {
  // `terms`: the index's and the query's reading (English stop words kept, unstemmed); `content`: CONTENT_WORDS.
  it.each([
    { text: 'Resetting the robot arms', terms: ['reset', 'the', 'robot', 'arm'], content: ['reset', 'robot', 'arm'] },
    { text: 'How do I reset it?', terms: ['how', 'do', 'i', 'reset', 'it'], content: ['reset'] },
    { text: 'Where can I get tested', terms: ['where', 'can', 'i', 'get', 'test'], content: ['test'] },
    { text: 'Error E201 on axis 3', terms: ['error', 'e201', 'on', 'axi', '3'], content: ['error', 'e201', 'axi', '3'] },
    { text: 'ＡＢＣ　Ｄｅｆ', terms: ['abc', 'def'], content: ['abc', 'def'] }, // NFKC: full-width folds
    { text: 'the screen is not lighting up', terms: ['the', 'screen', 'is', 'not', 'light', 'up'], content: ['screen', 'not', 'light'] }, // negations stay
    { text: '!!! ??? 😀', terms: [], content: [] },
    { text: 'of the and', terms: ['of', 'the', 'and'], content: [] },
  ])('$text → $terms (content words $content)', ({ text, terms, content }) => {
    expect(analyzeText(text)).toEqual(terms);
    expect(analyzeText(text, CONTENT_WORDS)).toEqual(content);
    expect(terms.filter((t) => !isStopWordTerm(t))).toEqual(content);
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
