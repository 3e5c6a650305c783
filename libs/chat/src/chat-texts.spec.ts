import { describe, expect, it } from '@jest/globals';
import { isExplicitNoAnswer } from '@arbiter/coverage';
import {
  alreadyProvidedText,
  answerIntroText,
  caveatText,
  clarifyText,
  emptyRuleReplyText,
  failureText,
  handoffText,
  notFoundText,
  sourcesBlock,
} from './chat-texts.js';

describe('chat fixed texts', () => {
  it.each(['zh', 'en'] as const)('the %s not-found exit is an explicit no-answer for coverage v1', (lang) => {
    expect(isExplicitNoAnswer(notFoundText(lang))).toBe(true);
  });

  it.each(['zh', 'en'] as const)('no other %s text reads as a no-answer (a good answer must not count as a miss)', (lang) => {
    const texts = [
      clarifyText(lang, [{ intent: 'fault_diagnosis' }, { intent: 'firmware_upgrade', label: '固件升级' }]),
      clarifyText(lang, []),
      handoffText(lang),
      caveatText(lang, { bestRelevance: 0.42 }),
      answerIntroText(lang),
      sourcesBlock(lang, [{ title: 'T', filePath: 'a/b.md' }]),
      alreadyProvidedText(lang, [{ title: 'T', filePath: 'a/b.md' }]),
      failureText(lang),
      emptyRuleReplyText(lang),
    ];
    for (const text of texts) expect(isExplicitNoAnswer(text)).toBe(false);
  });

  it.each([
    ['zh', 0.42, '相关度 42%'],
    ['en', 0.355, 'relevance 36%'],
    ['en', 1.7, 'relevance 100%'],
  ] as const)('the %s caveat names its reason: the best relevance %s → %s', (lang, bestRelevance, expected) => {
    expect(caveatText(lang, { bestRelevance })).toContain(expected);
  });

  it('lists the clarification candidates by label, else by intent', () => {
    const zh = clarifyText('zh', [{ intent: 'fault_diagnosis' }, { intent: 'firmware_upgrade', label: '固件升级' }]);
    expect(zh).toContain('1. fault_diagnosis');
    expect(zh).toContain('2. 固件升级');
    expect(clarifyText('en', [{ intent: 'refund' }])).toMatch(/which of these do you mean\?\n1\. refund/);
  });

  it('speaks the user language', () => {
    expect(handoffText('zh')).toMatch(/人工客服/);
    expect(handoffText('en')).toMatch(/human agent/);
    expect(sourcesBlock('en', [{ title: 'Reset', filePath: 'x.md' }])).toBe('Sources:\n[1] Reset (x.md)');
    expect(sourcesBlock('zh', [])).toBe('');
  });
});
