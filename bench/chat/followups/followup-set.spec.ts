import { describe, expect, it } from '@jest/globals';
import { rewriteFollowUp } from '@arbiter/chat';
import { readFollowUpSet } from './followup-set.js';

describe('the labelled follow-up set (bench/chat/followups)', () => {
  const items = readFollowUpSet();

  it('has at least 100 follow-up turns, at least 50 in each language, each with the section that answers it', () => {
    expect(items.length).toBeGreaterThanOrEqual(100);
    for (const language of ['en', 'zh'] as const) expect(items.filter((i) => i.language === language).length).toBeGreaterThanOrEqual(50);
    for (const item of items) {
      expect(item.first.trim().length).toBeGreaterThan(0);
      expect(item.followUp.trim().length).toBeGreaterThan(0);
      expect(item.answer).toMatch(/^\d+(\.\d+)+$/);
      expect(item.firstAnswer).toMatch(/^\d+(\.\d+)+$/);
    }
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(new Set(items.map((i) => `${i.first}\n${i.followUp}`)).size).toBe(items.length);
  });

  it('every follow-up is resolved by the rules against its first question (a small slice of what the bench measures)', () => {
    for (const item of items) {
      const out = rewriteFollowUp(item.followUp, [{ message: item.first, query: item.first, topic: item.first, answer: null, intent: null, domain: null }]);
      expect(out.search.length).toBeGreaterThan(0);
      // A rewritten follow-up searches more than the follow-up alone, or a new subject on its own.
      if (out.by !== 'none' && out.by !== 'what_about' && out.by !== 'code_swap') expect(out.search).toContain(item.first);
    }
  });
});
