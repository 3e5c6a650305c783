import { describe, expect, it } from '@jest/globals';
import {
  codesOf,
  condensedQuestion,
  condensePrompt,
  historyMessages,
  historyTurnCount,
  isRepeatQuestion,
  rewriteFollowUp,
  topicTerms,
  type PriorTurn,
} from './follow-up-rewrite.js';

const turn = (query: string, extra: Partial<PriorTurn> = {}): PriorTurn => ({
  message: query,
  query,
  topic: query,
  answer: null,
  intent: 'fault',
  domain: 'faults',
  ...extra,
});

const ZH = [turn('机械臂报警 E201 怎么处理？')];
const EN = [turn('The robot shows alarm E201, what should I check?')];

describe('rewriteFollowUp', () => {
  it.each([
    // code_swap: only a code, maybe wrapped
    [ZH, '那 E202 呢？', 'code_swap', '机械臂报警 E202 怎么处理？'],
    [ZH, 'E202', 'code_swap', '机械臂报警 E202 怎么处理？'],
    [ZH, 'e202呢', 'code_swap', '机械臂报警 E202 怎么处理？'],
    [EN, 'what about E202?', 'code_swap', 'The robot shows alarm E202, what should I check?'],
    [EN, 'And E301?', 'code_swap', 'The robot shows alarm E301, what should I check?'],
    [[turn('示教器连不上控制器')], '那 E105 呢', 'code_swap', '示教器连不上控制器 E105'],
    // still_failing
    [ZH, '还是不行', 'still_failing', '机械臂报警 E201 怎么处理？ 还是不行'],
    [ZH, '试过了，还是报警', 'still_failing', '机械臂报警 E201 怎么处理？ 试过了，还是报警'],
    [ZH, '复位之后还是不行', 'still_failing', '机械臂报警 E201 怎么处理？ 复位之后还是不行'],
    [ZH, '重启后还是连不上', 'still_failing', '机械臂报警 E201 怎么处理？ 重启后还是连不上'],
    [ZH, '还是要输密码', 'still_failing', '机械臂报警 E201 怎么处理？ 还是要输密码'],
    [EN, 'the connection is still slow', 'still_failing', 'The robot shows alarm E201, what should I check? the connection is still slow'],
    [EN, 'still not working', 'still_failing', 'The robot shows alarm E201, what should I check? still not working'],
    [EN, "I did that and it didn't help", 'still_failing', "The robot shows alarm E201, what should I check? I did that and it didn't help"],
    // cause
    [ZH, '为什么会这样？', 'cause', '机械臂报警 E201 怎么处理？ 为什么会这样？'],
    [ZH, '是什么原因', 'cause', '机械臂报警 E201 怎么处理？ 是什么原因'],
    [EN, 'why does that happen?', 'cause', 'The robot shows alarm E201, what should I check? why does that happen?'],
    [EN, 'What causes it?', 'cause', 'The robot shows alarm E201, what should I check? What causes it?'],
    // next_step
    [ZH, '下一步呢？', 'next_step', '机械臂报警 E201 怎么处理？ 下一步呢？'],
    [ZH, '接下来该做什么', 'next_step', '机械臂报警 E201 怎么处理？ 接下来该做什么'],
    [EN, "what's the next step?", 'next_step', "The robot shows alarm E201, what should I check? what's the next step?"],
    // what_about: a new subject, searched alone
    [EN, 'what about the warranty?', 'what_about', 'the warranty'],
    [EN, 'How about the firmware release notes?', 'what_about', 'the firmware release notes'],
    [ZH, '那保修呢？', 'what_about', '保修'],
    [ZH, '保修期怎么样', 'what_about', '保修期'],
    // anaphora
    [EN, 'how do I reset it?', 'anaphora', 'The robot shows alarm E201, what should I check? how do I reset it?'],
    [ZH, '这个要换电机吗', 'anaphora', '机械臂报警 E201 怎么处理？ 这个要换电机吗'],
    [ZH, '这样安全吗？', 'anaphora', '机械臂报警 E201 怎么处理？ 这样安全吗？'],
    [ZH, '怎么结束其中一个？', 'anaphora', '机械臂报警 E201 怎么处理？ 怎么结束其中一个？'],
    // short: no topic term of its own
    [ZH, '怎么办？', 'short', '机械臂报警 E201 怎么处理？ 怎么办？'],
    [EN, 'how?', 'short', 'The robot shows alarm E201, what should I check? how?'],
    // none: a question that stands alone, or nothing earlier
    [ZH, '固件升级失败怎么办', 'none', '固件升级失败怎么办'],
    [ZH, 'E201 还是不行', 'still_failing', '机械臂报警 E201 怎么处理？ E201 还是不行'],
    [ZH, 'E202 为什么', 'cause', '机械臂报警 E202 怎么处理？ E202 为什么'],
    [EN, 'How do I request a refund for my order?', 'none', 'How do I request a refund for my order?'],
    [[], '还是不行', 'none', '还是不行'],
    [[], 'what about E202?', 'none', 'what about E202?'],
  ])('%#: after %j, %j → %s %j', (history, message, by, query) => {
    const out = rewriteFollowUp(message, history);
    expect({ by: out.by, query: out.query }).toEqual({ by, query });
  });

  it.each([
    [ZH, '还是不行', '机械臂报警 E201 怎么处理？'],
    [ZH, '复位之后还是不行', '机械臂报警 E201 怎么处理？ 复位'],
    [EN, 'why does that happen?', 'The robot shows alarm E201, what should I check?'],
    [EN, 'how do I reset it?', 'The robot shows alarm E201, what should I check? reset'],
    [ZH, '那 E202 呢？', '机械臂报警 E202 怎么处理？'],
    [ZH, 'E202 为什么', '机械臂报警 E202 怎么处理？'],
    [ZH, '那保修呢？', '保修'],
    [ZH, '固件升级失败怎么办', '固件升级失败怎么办'],
  ])('after %j, %j searches %j (a same-topic follow-up: the topic and its own topic terms)', (history, message, search) => {
    expect(rewriteFollowUp(message, history).search).toBe(search);
  });

  it('carries the intent and domain while the follow-up stays on the topic, not for a new subject or a standalone question', () => {
    expect(rewriteFollowUp('还是不行', ZH).carry).toEqual({ intent: 'fault', domain: 'faults' });
    expect(rewriteFollowUp('那 E202 呢？', ZH).carry).toEqual({ intent: 'fault', domain: 'faults' });
    expect(rewriteFollowUp('what about the warranty?', EN).carry).toEqual({ intent: null, domain: null });
    expect(rewriteFollowUp('固件升级失败怎么办', ZH).carry).toEqual({ intent: null, domain: null });
  });

  it('keeps the topic across a chain of follow-ups (the latest topic, not every message so far)', () => {
    const first = rewriteFollowUp('下一步呢？', ZH);
    expect(first.topic).toBe(ZH[0].topic);
    const history = [...ZH, turn(first.query, { message: '下一步呢？', topic: first.topic })];
    expect(rewriteFollowUp('还是不行', history).query).toBe('机械臂报警 E201 怎么处理？ 还是不行');
    const swapped = rewriteFollowUp('那 E202 呢？', history);
    expect(swapped.topic).toBe('机械臂报警 E202 怎么处理？');
    expect(rewriteFollowUp('为什么', [...history, turn(swapped.query, { topic: swapped.topic })]).query).toBe('机械臂报警 E202 怎么处理？ 为什么');
  });
});

describe('isRepeatQuestion', () => {
  const history = [{ query: 'E201 报警怎么处理' }, { query: 'what is the warranty period?' }, { query: '机械臂报警 E202 怎么处理？' }];
  it.each([
    ['E202 报警', true],
    ['机械臂 E202', true],
    ['E202 编码器报警', false],
    ['E201 报警怎么处理', true],
    ['E201 报警', true],
    ['e201报警怎么处理？', true],
    ['What is the warranty period', true],
    ['warranty?', true],
    // a new aspect of the same document is not a repeat
    ['E201 报警怎么处理 还是不行', false],
    ['E201 报警怎么处理 为什么', false],
    ['E201 报警怎么处理 下一步呢', false],
    ['E201 还是报警，现在 E202 也报警了', false],
    ['E105 报警怎么处理', false],
    ['warranty for the controller', false],
  ])('%j → %s', (query, repeat) => {
    expect(isRepeatQuestion(query, history)).toBe(repeat);
  });

  it('is never a repeat in a new conversation', () => {
    expect(isRepeatQuestion('E201 报警怎么处理', [])).toBe(false);
  });
});

describe('topicTerms and codesOf', () => {
  it.each([
    ['那 E202 呢？', ['E202']],
    ['what about the warranty?', ['warranty']],
    ['还是不行', []],
    ['为什么会这样', []],
    ['机械臂报警 E201 怎么处理？', ['E201', '机械臂报警']],
    ["what's the next step?", []],
  ])('%j → %j', (text, terms) => {
    expect(topicTerms(text)).toEqual(terms);
  });
  it('finds codes with or without a dash, not inside words', () => {
    expect(codesOf('ERR-42 and e201, RX200 but not abcde12345 or E2')).toEqual(['ERR-42', 'E201', 'RX200']);
  });
});

describe('historyMessages (what the model sees)', () => {
  const turns = [1, 2, 3, 4].map((i) => turn(`q${i}`, { answer: `answer ${i}` }));
  it.each([
    [{ turns: 10, chars: 1000 }, ['q1', 'answer 1', 'q2', 'answer 2', 'q3', 'answer 3', 'q4', 'answer 4']],
    [{ turns: 2, chars: 1000 }, ['q3', 'answer 3', 'q4', 'answer 4']],
    [{ turns: 0, chars: 1000 }, []],
    // 2 + 8 + 2 + 8 = 20 characters for the last two turns; the third-last question no longer fits
    [{ turns: 10, chars: 21 }, ['q3', 'answer 3', 'q4', 'answer 4']],
    // a reply longer than what is left is cut, never the question
    [{ turns: 10, chars: 6 }, ['q4', 'ans…']],
    [{ turns: 10, chars: 1 }, []],
  ])('%j', (limits, contents) => {
    expect(historyMessages(turns, limits).map((m) => m.content)).toEqual(contents);
  });
  it('alternates user and assistant, oldest first; a turn without a reply has the question only', () => {
    const out = historyMessages([turn('a', { answer: null }), turn('b', { answer: 'B' })], { turns: 5, chars: 100 });
    expect(out).toEqual([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'B' },
    ]);
    expect(historyTurnCount(out)).toBe(2);
  });
});

describe('the condensing call', () => {
  it('shows the conversation and the last message', () => {
    const prompt = condensePrompt('那 E202 呢？', [
      { role: 'user', content: 'E201 怎么处理' },
      { role: 'assistant', content: '检查电机' },
    ]);
    expect(prompt.user).toBe('Conversation:\nUser: E201 怎么处理\nAssistant: 检查电机\n\nLast message: 那 E202 呢？\n\nStandalone question:');
    expect(prompt.system).toMatch(/standalone question/);
  });
  it.each([
    ['  E202 报警怎么处理？ ', 'E202 报警怎么处理？'],
    ['"What is the warranty of the RX-200?"', 'What is the warranty of the RX-200?'],
    ['Standalone question: why does E201 happen?', 'why does E201 happen?'],
    ['问题：E202 怎么处理', 'E202 怎么处理'],
    ['   ', null],
    ['x'.repeat(41), null],
    ['{"confidence": 80}', null],
  ])('%j → %j', (output, cleaned) => {
    expect(condensedQuestion(output, 40)).toBe(cleaned);
  });
});
