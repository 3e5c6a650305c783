import { describe, expect, it } from '@jest/globals';
import {
  copiedPhrase,
  loadQuestionSet,
  MANUAL_LANGUAGES,
  MIN_ANSWERABLE,
  MIN_UNANSWERABLE,
  QUESTION_SPLITS,
  questionSetProblems,
  type QuestionSet,
} from './questions.js';

const everySet = MANUAL_LANGUAGES.flatMap((language) => QUESTION_SPLITS.map((split) => ({ language, split })));

describe('the committed question sets', () => {
  it.each(everySet)('$language $split has no problems', ({ language, split }) => {
    const set = loadQuestionSet(language, split);
    expect(set.language).toBe(language);
    expect(questionSetProblems(set)).toEqual([]);
    expect(set.answerable.length).toBeGreaterThanOrEqual(MIN_ANSWERABLE);
    expect(set.unanswerable.length).toBeGreaterThanOrEqual(MIN_UNANSWERABLE);
  });

  it.each(everySet)('$language $split is spread over the whole manual: every quarter of its pages answers some question', ({ language, split }) => {
    const set = loadQuestionSet(language, split);
    const quarters = new Set(set.answerable.flatMap((q) => q.pages.map((p) => Math.min(3, Math.floor((4 * (p - 1)) / set.manual.pages)))));
    expect([...quarters].sort()).toEqual([0, 1, 2, 3]);
  });

  it.each(MANUAL_LANGUAGES.map((language) => ({ language })))(
    '$language: the dev set is of the same manual and shares no id or question with the held-out set',
    ({ language }) => {
      const heldOut = loadQuestionSet(language, 'held-out');
      const dev = loadQuestionSet(language, 'dev');
      expect(dev.manual).toEqual(heldOut.manual);
      const all = (s: QuestionSet) => [...s.answerable, ...s.unanswerable];
      const heldOutIds = new Set(all(heldOut).map((q) => q.id));
      const heldOutTexts = new Set(all(heldOut).map((q) => q.question.trim().toLowerCase()));
      expect(all(dev).filter((q) => heldOutIds.has(q.id) || heldOutTexts.has(q.question.trim().toLowerCase()))).toEqual([]);
    },
  );
});

describe('questionSetProblems', () => {
  const valid = (): QuestionSet => ({
    language: 'en',
    manual: { package: 'p', version: '1', file: '/x.pdf', pages: 10 },
    answerable: Array.from({ length: MIN_ANSWERABLE }, (_, i) => ({ id: `a${i}`, question: `question ${i}`, pages: [1 + (i % 10)] })),
    unanswerable: Array.from({ length: MIN_UNANSWERABLE }, (_, i) => ({ id: `u${i}`, question: `other ${i}` })),
  });

  it('accepts a valid set', () => {
    expect(questionSetProblems(valid())).toEqual([]);
  });

  it.each([
    { name: 'too few answerable', change: (s: QuestionSet) => s.answerable.pop(), problem: `${MIN_ANSWERABLE - 1} answerable questions` },
    { name: 'too few unanswerable', change: (s: QuestionSet) => s.unanswerable.pop(), problem: `${MIN_UNANSWERABLE - 1} unanswerable questions` },
    { name: 'a repeated id', change: (s: QuestionSet) => (s.unanswerable[0]!.id = 'a0'), problem: 'a0: id repeated' },
    { name: 'a repeated question', change: (s: QuestionSet) => (s.unanswerable[0]!.question = 'question 3'), problem: 'u0: question repeated' },
    { name: 'an empty question', change: (s: QuestionSet) => (s.answerable[0]!.question = ' '), problem: 'a0: empty question' },
    { name: 'no pages', change: (s: QuestionSet) => (s.answerable[1]!.pages = []), problem: 'a1: no pages' },
    { name: 'a page past the end', change: (s: QuestionSet) => (s.answerable[2]!.pages = [11]), problem: 'a2: page 11 outside 1..10' },
    { name: 'page 0', change: (s: QuestionSet) => (s.answerable[2]!.pages = [0]), problem: 'a2: page 0 outside 1..10' },
    { name: 'pages out of order', change: (s: QuestionSet) => (s.answerable[3]!.pages = [5, 4]), problem: 'a3: pages not ascending and distinct' },
    { name: 'a page twice', change: (s: QuestionSet) => (s.answerable[3]!.pages = [4, 4]), problem: 'a3: pages not ascending and distinct' },
  ])('names $name', ({ change, problem }) => {
    const set = valid();
    change(set);
    expect(questionSetProblems(set).join('\n')).toContain(problem);
  });
});

describe('copiedPhrase', () => {
  const manual =
    'NetworkManager 不管 Setting the sticky bit on a directory prevents a file in the directory from being removed. 在目录上设置粘滞位将保护该目录内的文件不被删除。';
  it.each([
    { question: 'How do I stop others deleting my files in /tmp?', language: 'en' as const, copied: null },
    { question: 'Why is setting the sticky bit on a directory useful?', language: 'en' as const, copied: 'setting the sticky bit on a' },
    { question: 'the sticky bit on a directory', language: 'en' as const, copied: 'the sticky bit on a directory' },
    { question: 'the sticky bit on a folder prevents', language: 'en' as const, copied: null },
    { question: '公共目录里我的文件总被别人删掉怎么办？', language: 'zh' as const, copied: null },
    { question: 'NetworkManager 不管我的有线网卡', language: 'zh' as const, copied: null },
    { question: '为什么NetworkManager不管Setting the sticky', language: 'zh' as const, copied: null },
    {
      question: '问NetworkManager不管setting the sticky bit on a directory',
      language: 'zh' as const,
      copied: 'networkmanager 不 管 setting the sticky bit on a directory',
    },
    { question: '为什么要在目录上设置粘滞位将保护文件？', language: 'zh' as const, copied: '在 目 录 上 设 置 粘 滞 位 将' },
  ])('$question → $copied', ({ question, language, copied }) => {
    expect(copiedPhrase(question, manual, language)).toBe(copied);
  });
});
