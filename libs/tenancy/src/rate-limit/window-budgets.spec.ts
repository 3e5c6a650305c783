import { describe, expect, it } from '@jest/globals';
import { leaseSize, WindowBudgets, type LeaseStore } from './window-budgets.js';

/** The shared table as the repository keeps it: reservations never exceed the limit. */
class SharedTable implements LeaseStore {
  readonly rows = new Map<string, number>();
  calls = 0;

  reserve(_tenantId: string, bucket: string, windowStart: number, want: number, limit: number) {
    this.calls++;
    const key = `${bucket}@${windowStart}`;
    const before = this.rows.get(key) ?? 0;
    const granted = Math.max(0, Math.min(want, limit - before));
    this.rows.set(key, before + granted);
    return Promise.resolve({ granted, reserved: before + granted });
  }
}

function clock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function admitted(budgets: WindowBudgets, n: number, limit: number, bucket = 'k:a:chat'): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await budgets.take('t1', bucket, limit)).allowed) ok++;
  return ok;
}

describe('WindowBudgets', () => {
  it.each([
    [1, 1],
    [60, 2],
    [600, 12],
    [1_000_000, 1000],
  ])('reserves about 2 %% of a limit of %i at once (%i)', (limit, size) => {
    expect(leaseSize(limit)).toBe(size);
  });

  it('in memory: admits the limit in a window, refuses the rest with the seconds to its end, and starts again in the next', async () => {
    const c = clock(1_800_000_000_000 + 45_000);
    const budgets = new WindowBudgets({ windowMs: 60_000, store: null, now: c.now });
    expect(await admitted(budgets, 10, 7)).toBe(7);
    expect(await budgets.take('t1', 'k:a:chat', 7)).toEqual({ allowed: false, limit: 7, remaining: 0, resetSeconds: 15 });
    expect(await admitted(budgets, 5, 7, 'k:b:chat')).toBe(5);
    c.advance(15_000);
    expect(await budgets.take('t1', 'k:a:chat', 7)).toEqual({ allowed: true, limit: 7, remaining: 6, resetSeconds: 60 });
  });

  it('with a shared table: replicas together never admit more than the limit, and spend few statements', async () => {
    const table = new SharedTable();
    const c = clock();
    const replicas = [0, 1, 2].map(() => new WindowBudgets({ windowMs: 60_000, store: table, now: c.now }));
    let ok = 0;
    for (let i = 0; i < 1500; i++) if ((await replicas[i % 3].take('t1', 't:t1:route', 600)).allowed) ok++;
    expect(ok).toBeLessThanOrEqual(600);
    // What replicas hold unused at the end is at most one lease each.
    expect(ok).toBeGreaterThanOrEqual(600 - 3 * leaseSize(600));
    expect(table.calls).toBeLessThan(1500 / 5);
  });

  it('a spent window costs no more statements until it ends', async () => {
    const table = new SharedTable();
    const c = clock();
    const budgets = new WindowBudgets({ windowMs: 60_000, store: table, now: c.now });
    expect(await admitted(budgets, 100, 50)).toBe(50);
    const calls = table.calls;
    expect(await admitted(budgets, 100, 50)).toBe(0);
    expect(table.calls).toBe(calls);
    c.advance(60_000);
    expect(await admitted(budgets, 10, 50)).toBe(10);
    expect(table.calls).toBe(calls + 10);
  });

  it('concurrent requests share one reservation', async () => {
    const table = new SharedTable();
    const budgets = new WindowBudgets({ windowMs: 60_000, store: table, now: clock().now });
    const decisions = await Promise.all(Array.from({ length: 12 }, () => budgets.take('t1', 't:t1:lookup', 600)));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(table.calls).toBe(1);
  });

  it('lets a failed reservation reach the caller', async () => {
    const budgets = new WindowBudgets({ windowMs: 60_000, store: { reserve: () => Promise.reject(new Error('db down')) }, now: clock().now });
    await expect(budgets.take('t1', 'x', 10)).rejects.toThrow('db down');
  });
});
