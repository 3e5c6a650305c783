import { describe, expect, it } from '@jest/globals';
import { detectLanguage } from './chat-language.js';

describe('detectLanguage', () => {
  const cases: [string, 'zh' | 'en'][] = [
    ['机械臂报警 E201 怎么处理？', 'zh'],
    ['E201', 'zh'],
    ['', 'zh'],
    ['🙂🙂', 'zh'],
    ['How do I reset alarm E201?', 'en'],
    ['robot arm alarm E201 报警', 'en'],
    ['示教器 teach pendant 黑屏', 'zh'],
    ['My order has not arrived, refund please', 'en'],
    ['ok', 'en'],
  ];
  it.each(cases)('%s → %s', (message, lang) => {
    expect(detectLanguage(message)).toBe(lang);
  });
});
