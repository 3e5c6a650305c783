import { describe, expect, it } from '@jest/globals';
import { isExplicitNoAnswer } from '@arbiter/coverage';
import { detectLanguage } from './chat-language.js';
import { DEMO_KNOWLEDGE } from './demo-knowledge.js';

describe('demo knowledge', () => {
  it('has 20+ documents across several domains, unique paths, Chinese and English', () => {
    expect(DEMO_KNOWLEDGE.length).toBeGreaterThanOrEqual(20);
    expect(new Set(DEMO_KNOWLEDGE.map((d) => d.filePath)).size).toBe(DEMO_KNOWLEDGE.length);
    expect(new Set(DEMO_KNOWLEDGE.map((d) => d.domain)).size).toBeGreaterThanOrEqual(5);
    const langs = DEMO_KNOWLEDGE.map((d) => detectLanguage(d.content));
    expect(langs.filter((l) => l === 'en').length).toBeGreaterThanOrEqual(3);
    expect(langs.filter((l) => l === 'zh').length).toBeGreaterThanOrEqual(15);
  });

  it('never contains a coverage no-answer phrase (quoting it would turn an answer into a miss)', () => {
    for (const d of DEMO_KNOWLEDGE) expect([d.filePath, isExplicitNoAnswer(`${d.title}\n${d.content}`)]).toEqual([d.filePath, false]);
  });
});
