import { describe, expect, it } from '@jest/globals';
import { isExplicitNoAnswer } from '@arbiter/coverage';
import { DEMO_KNOWLEDGE } from './demo-knowledge.js';

/** The chat's language rule (libs/chat chat-language.ts): Chinese when Han characters >= Latin words. */
const isChinese = (text: string) => (text.match(/\p{Script=Han}/gu)?.length ?? 0) >= (text.match(/[A-Za-z]{2,}/g)?.length ?? 0);

describe('demo knowledge', () => {
  it('has 20+ documents across several domains, unique paths, Chinese and English', () => {
    expect(DEMO_KNOWLEDGE.length).toBeGreaterThanOrEqual(20);
    expect(new Set(DEMO_KNOWLEDGE.map((d) => d.filePath)).size).toBe(DEMO_KNOWLEDGE.length);
    expect(new Set(DEMO_KNOWLEDGE.map((d) => d.domain)).size).toBeGreaterThanOrEqual(5);
    const langs = DEMO_KNOWLEDGE.map((d) => (isChinese(d.content) ? 'zh' : 'en'));
    expect(langs.filter((l) => l === 'en').length).toBeGreaterThanOrEqual(3);
    expect(langs.filter((l) => l === 'zh').length).toBeGreaterThanOrEqual(15);
  });

  it('never contains a coverage no-answer phrase (quoting it would turn an answer into a miss)', () => {
    for (const d of DEMO_KNOWLEDGE) expect([d.filePath, isExplicitNoAnswer(`${d.title}\n${d.content}`)]).toEqual([d.filePath, false]);
  });
});
