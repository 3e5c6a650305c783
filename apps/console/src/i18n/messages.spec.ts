import { describe, expect, it } from '@jest/globals';
import { codeKey, MESSAGES } from './messages';

describe('messages', () => {
  it('names the API codes it knows and leaves the others to be shown as the API names them', () => {
    expect(codeKey('layer', 'knowledge_gap')).toBe('layer.knowledge_gap');
    expect(codeKey('reason', 'fusion_fallback')).toBe('reason.fusion_fallback');
    expect(codeKey('jobStatus', 'succeeded')).toBe('jobStatus.succeeded');
    expect(codeKey('reason', 'a_reason_of_tomorrow')).toBeNull();
    expect(codeKey('layer', 'toString')).toBeNull();
  });

  it('every message has a non-blank Chinese and English text, with the same placeholders', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [key, english] of Object.entries(MESSAGES.en)) {
      const chinese = MESSAGES.zh[key as keyof typeof MESSAGES.zh];
      expect({ key, blank: !english.trim() || !chinese.trim() }).toEqual({ key, blank: false });
      expect({ key, placeholders: placeholders(chinese) }).toEqual({ key, placeholders: placeholders(english) });
    }
  });
});
