import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { concatSliced, mapSliced, sha256Sliced, TimeSlice } from './time-slice.js';

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

describe('concatSliced', () => {
  it("equals Buffer.concat, in a buffer outside Node's shared pool", async () => {
    const parts = [Buffer.from('ab'), Buffer.from(''), Buffer.from('cde'), new Uint8Array([0x66])];
    const joined = await concatSliced(parts, 6);
    expect(joined.toString()).toBe('abcdef');
    expect(joined.buffer.byteLength).toBe(6);
  });

  it('lets a timer run while joining many parts once the budget is used', async () => {
    // 64 MiB in 64 KiB parts: far over a 0 ms budget, so it yields between parts.
    const parts = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i));
    let ticked = false;
    const immediate = setImmediate(() => (ticked = true));
    const joined = await concatSliced(parts, 64 * 64 * 1024, 0);
    clearImmediate(immediate);
    expect(ticked).toBe(true);
    expect(joined.equals(Buffer.concat(parts))).toBe(true);
  });

  it('refuses a size the parts do not hold', async () => {
    await expect(concatSliced([Buffer.from('ab')], 3)).rejects.toThrow('the parts hold 2 bytes, not 3');
  });
});

describe('sha256Sliced', () => {
  it('equals a one-shot SHA-256, across 1 MiB steps and for an empty input', async () => {
    const bytes = Buffer.alloc(2.5 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    expect(await sha256Sliced(bytes, 0)).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(await sha256Sliced(new Uint8Array(0))).toBe(createHash('sha256').update(Buffer.alloc(0)).digest('hex'));
  });
});
