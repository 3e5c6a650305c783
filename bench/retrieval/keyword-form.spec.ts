import { describe, expect, it } from '@jest/globals';
import { keywordForm } from './keyword-form.js';

describe('keywordForm', () => {
  it.each([
    { text: 'what is my credit score', language: 'en' as const, expected: 'credit score' },
    { text: 'How do I top up my card?', language: 'en' as const, expected: 'top card' },
    { text: "can you find 'were the millers' on hulu", language: 'en' as const, expected: 'find millers hulu' },
    { text: "why don't my transfers arrive", language: 'en' as const, expected: "why don't transfers arrive" },
    { text: 'what can you do', language: 'en' as const, expected: 'what can you do' },
    { text: '下午两点叫醒我。', language: 'zh' as const, expected: '下午 两点 叫醒' },
    { text: '我们什么时候到', language: 'zh' as const, expected: '时候' },
    { text: '冰激凌怎么做哦', language: 'zh' as const, expected: '冰激凌 怎么 哦' },
  ])('$language: $text → $expected', ({ text, language, expected }) => {
    expect(keywordForm(text, language)).toBe(expected);
  });
});
