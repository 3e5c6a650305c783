import { describe, expect, it } from '@jest/globals';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';
import { rowsToFaq } from './faq-sheet.js';

describe('rowsToFaq: header recognition and similar-question splitting', () => {
  it.each([
    { header: ['Question', 'Answer'], similar: undefined, expected: [] },
    { header: ['标准问题', '回答', '相似问法'], similar: 'a、b；c', expected: ['a', 'b', 'c'] },
    { header: ['问题', '答案', '相似问题'], similar: 'a|b\nc，d', expected: ['a', 'b', 'c', 'd'] },
    { header: ['ID', ' similar_questions ', 'ANSWER', 'question'], similar: 'x; y', expected: ['x', 'y'] },
  ])('$header', ({ header, similar, expected }) => {
    const q = header.findIndex((h) => /question$|问题$/i.test(h.trim()) && !/similar|相似/i.test(h));
    const a = header.findIndex((h) => /answer|答案|回答/i.test(h));
    const s = header.findIndex((h) => /similar|相似/i.test(h));
    const row = header.map(() => '');
    row[q] = 'Q?';
    row[a] = 'A.';
    if (s >= 0 && similar !== undefined) row[s] = similar;
    expect(rowsToFaq([header, row])).toEqual([{ row: 2, question: 'Q?', answer: 'A.', similar: expected }]);
  });

  it.each([
    { header: ['question', 'reply'], what: 'no answer column' },
    { header: ['相似问题', '答案'], what: 'similar questions are not the question' },
    { header: [], what: 'empty sheet' },
  ])('$what → SHEET_NO_QUESTION_ANSWER', ({ header }) => {
    let code: string | undefined;
    try {
      rowsToFaq([header, ['x', 'y']]);
    } catch (e) {
      code = e instanceof ExtractionError ? e.code : undefined;
    }
    expect(code).toBe(ExtractionErrorCode.SheetNoQuestionAnswer);
  });

  it('skips rows without a question or an answer and numbers the rest by sheet row', () => {
    const faq = rowsToFaq([
      ['q', 'a'],
      ['', 'orphan answer'],
      ['lonely question', ''],
      ['kept', 'yes'],
    ]);
    expect(faq).toEqual([{ row: 4, question: 'kept', answer: 'yes', similar: [] }]);
  });
});
