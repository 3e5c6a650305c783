import { describe, expect, it } from '@jest/globals';
import { choiceOf } from './choice';

describe('choiceOf', () => {
  const statuses = ['', 'OPEN', 'RESOLVED'] as const;
  it.each([
    { raw: 'OPEN', expected: 'OPEN' },
    { raw: '', expected: '' },
    { raw: 'open', expected: '' },
    { raw: 'DELETED', expected: '' },
  ])('$raw → $expected', ({ raw, expected }) => {
    expect(choiceOf(statuses, raw, '')).toBe(expected);
  });
});
