import { describe, expect, it } from '@jest/globals';
import { AddressFailures } from './address-failures.js';

describe('AddressFailures', () => {
  it('is past the limit from the (limit + 1)th failure of an address in a minute, per address, and forgets at the next minute', () => {
    let now = 1_800_000_030_000;
    const failures = new AddressFailures(3, () => now);
    expect([1, 2, 3, 4, 5].map(() => failures.record('10.0.0.1'))).toEqual([false, false, false, true, true]);
    expect(failures.record('10.0.0.2')).toBe(false);
    expect(failures.retryAfterSeconds()).toBe(30);
    now += 30_000;
    expect(failures.record('10.0.0.1')).toBe(false);
  });

  it('never limits with 0, and bounds the addresses it holds', () => {
    expect(new AddressFailures(0).record('a')).toBe(false);
    const bounded = new AddressFailures(2, () => 0, 2);
    bounded.record('a');
    bounded.record('b');
    expect([bounded.record('c'), bounded.record('d'), bounded.record('e')]).toEqual([false, false, true]);
  });
});
