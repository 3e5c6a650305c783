import { describe, expect, it } from '@jest/globals';
import { mapSliced, TimeSlice } from './time-slice.js';

/** Busy-waits `ms` (a stand-in for CPU-bound work). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('TimeSlice', () => {
  it('lets a timer run between items once the budget is used, not after every item', async () => {
    const slice = new TimeSlice(5);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      for (let i = 0; i < 20; i++) {
        spin(1);
        await slice.pause();
      }
    } finally {
      clearInterval(timer);
    }
    // 20 ms of work in 5 ms slices: the interval got turns (a loop without pauses gives it none).
    expect(ticks).toBeGreaterThanOrEqual(2);
  });

  it('does not yield while under budget', async () => {
    const slice = new TimeSlice(10_000);
    let ticked = false;
    const immediate = setImmediate(() => (ticked = true));
    for (let i = 0; i < 100; i++) await slice.pause();
    expect(ticked).toBe(false);
    clearImmediate(immediate);
  });

  it('mapSliced keeps order and indices', async () => {
    expect(await mapSliced(['a', 'b', 'c'], (s, i) => `${s}${i}`, 0)).toEqual(['a0', 'b1', 'c2']);
  });
});
