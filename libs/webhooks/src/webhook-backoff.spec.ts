import { describe, expect, it } from '@jest/globals';
import { MAX_RETRY_DELAY_MS, nextAttemptAt, RETRY_WINDOW_MS, retryDelayMs } from './webhook-backoff.js';

const S = 1000;
const H = 3600 * S;

describe('webhook retry schedule', () => {
  it.each([
    [1, 10 * S],
    [2, 20 * S],
    [3, 40 * S],
    [5, 160 * S],
    [10, 5120 * S],
    [11, 10240 * S],
    [12, 4 * H], // 20480 s is capped at 4 h
    [30, 4 * H],
    [1000, 4 * H],
  ])('after %i failed attempts waits %i ms (base 10 s)', (failures, delay) => {
    expect(retryDelayMs(failures, 10 * S)).toBe(delay);
  });

  it('never waits more than 4 hours', () => {
    expect(MAX_RETRY_DELAY_MS).toBe(4 * H);
  });

  it('stops retrying 24 hours after the delivery was created', () => {
    const created = new Date('2026-01-01T00:00:00Z');
    expect(nextAttemptAt(created, 1, created, 10 * S)).toEqual(new Date(created.getTime() + 10 * S));
    expect(nextAttemptAt(created, 12, new Date(created.getTime() + 20 * H), 10 * S)).toEqual(new Date(created.getTime() + 24 * H));
    expect(nextAttemptAt(created, 12, new Date(created.getTime() + 20 * H + 1), 10 * S)).toBeNull();
  });

  it('attempts about 16 times over the 24-hour window with the default base', () => {
    const created = new Date(0);
    let now = created;
    let attempts = 1; // the first attempt
    for (;;) {
      const next = nextAttemptAt(created, attempts, now, 10 * S);
      if (!next) break;
      attempts++;
      now = next;
    }
    expect(now.getTime()).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(attempts).toBeGreaterThanOrEqual(14);
    expect(attempts).toBeLessThanOrEqual(18);
  });
});
