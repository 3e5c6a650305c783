import { describe, expect, it } from '@jest/globals';
import { pollUntil } from './poll-until.js';

describe('pollUntil', () => {
  it('returns the first value that satisfies the condition', async () => {
    let calls = 0;
    const { value } = await pollUntil(
      'count',
      () => Promise.resolve(++calls),
      (n) => n >= 3,
      { deadlineMs: 5_000, intervalMs: 1 },
    );
    expect(value).toBe(3);
    expect(calls).toBe(3);
  });

  it('fails past the deadline naming what it waited for and the last value seen', async () => {
    await expect(
      pollUntil(
        'the flag',
        () => Promise.resolve({ flag: false }),
        (v) => v.flag,
        { deadlineMs: 30, intervalMs: 5 },
      ),
    ).rejects.toThrow(/^the flag: not within 30 ms \(\d+ ms\); last: \{"flag":false\}$/);
  });
});
