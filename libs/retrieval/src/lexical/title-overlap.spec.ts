import { describe, expect, it } from '@jest/globals';
import { surfaceWords, titleOverlap } from './title-overlap.js';

describe('surfaceWords', () => {
  it.each([
    { text: 'Where can I get tested for COVID-19?', words: ['where', 'can', 'i', 'get', 'tested', 'for', 'covid', '19'] },
    { text: 'what is   covid19 ?', words: ['what', 'is', 'covid19'] },
    { text: 'ＡＢＣ　Ｅ２０１', words: ['abc', 'e201'] },
    { text: '怎么开发票？', words: ['怎', '么', '开', '发', '票'] },
    { text: 'E201报警', words: ['e201', '报', '警'] },
    { text: '40E减速机 v2', words: ['40e', '减', '速', '机', 'v2'] },
    { text: '?!…', words: [] },
  ])('$text → $words', ({ text, words }) => {
    expect([...surfaceWords(text)]).toEqual(words);
  });
});

describe('titleOverlap', () => {
  it.each([
    { question: 'where can I get tested', title: 'Where can I get tested for COVID-19?', overlap: (2 * 5) / (5 + 8) },
    { question: 'where can I get tested', title: 'Should I be tested for COVID-19?', overlap: (2 * 2) / (5 + 7) },
    { question: 'What are the symptoms of covid19', title: 'What are the symptoms of COVID-19?', overlap: (2 * 5) / (6 + 7) },
    { question: 'symptoms', title: 'symptoms', overlap: 1 },
    { question: 'masks', title: 'Should I wear a face mask?', overlap: 0 },
    { question: '发票', title: '你们支持开发票吗', overlap: (2 * 2) / (2 + 8) },
    { question: '', title: 'anything', overlap: 0 },
    { question: 'anything', title: '', overlap: 0 },
  ])('$question | $title → $overlap', ({ question, title, overlap }) => {
    expect(titleOverlap(surfaceWords(question), surfaceWords(title))).toBeCloseTo(overlap, 12);
  });

  it('repeats the question frame of the right FAQ entry more than of its neighbour', () => {
    const q = surfaceWords('where can I get tested');
    expect(titleOverlap(q, surfaceWords('Where can I get tested for COVID-19?'))).toBeGreaterThan(
      titleOverlap(q, surfaceWords('Should I be tested for COVID-19?')),
    );
  });
});
