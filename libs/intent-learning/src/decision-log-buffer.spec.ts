import { describe, expect, it } from '@jest/globals';
import { DecisionLogBuffer, type BufferClock, type DecisionLogBufferPolicy, type DecisionLogDropReason } from './decision-log-buffer.js';

/** A manual clock: timers fire on `advance`, deferred work on `tick`. */
class FakeClock implements BufferClock {
  time = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private deferred: (() => void)[] = [];
  private nextId = 1;

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  defer(fn: () => void): void {
    this.deferred.push(fn);
  }
  now(): number {
    return this.time;
  }
  get pendingTimers(): number {
    return this.timers.length;
  }
  /** Runs deferred work, then lets the flush's promises settle. */
  async tick(): Promise<void> {
    const work = this.deferred;
    this.deferred = [];
    for (const fn of work) fn();
    await settle();
  }
  async advance(ms: number): Promise<void> {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const t of due) t.fn();
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

const POLICY: DecisionLogBufferPolicy = { intervalMs: 100, batchRows: 3, capacity: 5, maxAttempts: 2 };

function setup(policy: DecisionLogBufferPolicy = POLICY, fail: (rows: number[]) => boolean = () => false) {
  const clock = new FakeClock();
  const written: number[][] = [];
  const calls: number[][] = [];
  const drops: Record<DecisionLogDropReason, number> = { full: 0, failed: 0, closed: 0 };
  const buffer = new DecisionLogBuffer<number>(
    async (rows) => {
      calls.push(rows);
      if (fail(rows)) throw new Error('database away');
      written.push(rows);
    },
    policy,
    { onDrop: (reason, n) => (drops[reason] += n) },
    clock,
  );
  return { clock, written, calls, drops, buffer };
}

describe('DecisionLogBuffer flush policy', () => {
  it('push never writes synchronously; the interval flushes what waits in one call', async () => {
    const { clock, written, buffer } = setup();
    buffer.push(1);
    buffer.push(2);
    expect(written).toEqual([]);
    await clock.advance(99);
    expect(written).toEqual([]);
    await clock.advance(1);
    expect(written).toEqual([[1, 2]]);
    expect(buffer.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a full batch is flushed on the next turn, not inside push, and without waiting for the interval', async () => {
    const { clock, written, buffer } = setup();
    buffer.push(1);
    buffer.push(2);
    buffer.push(3);
    expect(written).toEqual([]);
    await clock.tick();
    expect(written).toEqual([[1, 2, 3]]);
  });

  it('writes at most batchRows per call, oldest first, and flushes again while a full batch waits', async () => {
    const { clock, written, buffer } = setup({ ...POLICY, capacity: 10 });
    for (let i = 1; i <= 7; i++) buffer.push(i);
    await clock.tick();
    await clock.tick();
    expect(written).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await clock.advance(100);
    expect(written).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('when full, drops the oldest rows and counts them', async () => {
    const { clock, written, drops, buffer } = setup({ ...POLICY, batchRows: 5, capacity: 5 });
    // Each push that finds 5 waiting drops the oldest: the flush is deferred, so all 8 pushes run first.
    for (let i = 1; i <= 8; i++) buffer.push(i);
    expect(buffer.size).toBe(5);
    expect(drops.full).toBe(3);
    await clock.tick();
    expect(written).toEqual([[4, 5, 6, 7, 8]]);
  });

  it('a failed flush keeps its rows (front, in order) and retries after an interval; a row failing maxAttempts times is dropped', async () => {
    let failing = true;
    const { clock, written, calls, drops, buffer } = setup({ ...POLICY, maxAttempts: 3 }, () => failing);
    buffer.push(1);
    await clock.advance(100);
    expect(calls).toEqual([[1]]);
    buffer.push(2);
    await clock.advance(50);
    expect(calls).toHaveLength(1); // no hot retry
    await clock.advance(50);
    expect(calls).toEqual([[1], [1, 2]]);
    expect(written).toEqual([]);
    await clock.advance(100); // row 1's third failure: dropped
    expect(drops.failed).toBe(1);
    failing = false;
    await clock.advance(100);
    expect(written).toEqual([[2]]);
    expect(buffer.size).toBe(0);
  });

  it('a failure never lets the buffer grow past its capacity', async () => {
    let failing = true;
    const { clock, drops, buffer } = setup({ ...POLICY, batchRows: 3, capacity: 3, maxAttempts: 5 }, () => failing);
    buffer.push(1);
    buffer.push(2);
    buffer.push(3);
    await clock.tick(); // fails, rows back
    buffer.push(4);
    buffer.push(5);
    expect(buffer.size).toBe(3);
    expect(drops.full).toBe(2);
    failing = false;
    await clock.advance(100);
    expect(buffer.size).toBe(0);
  });

  it('close flushes everything waiting, in batches, then refuses (and counts) new rows', async () => {
    const { written, drops, buffer } = setup({ ...POLICY, capacity: 10 });
    for (let i = 1; i <= 5; i++) buffer.push(i);
    await buffer.close();
    expect(written).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    buffer.push(6);
    expect(drops.closed).toBe(1);
    expect(buffer.size).toBe(0);
  });

  it('close gives a failing batch one last attempt and counts what it could not write', async () => {
    const { calls, drops, buffer } = setup({ ...POLICY, maxAttempts: 5 }, () => true);
    buffer.push(1);
    buffer.push(2);
    await buffer.close();
    expect(calls).toEqual([[1, 2]]);
    expect(drops.failed).toBe(2);
    expect(buffer.size).toBe(0);
  });

  it('close waits for a running flush', async () => {
    let release!: () => void;
    const clock = new FakeClock();
    const written: number[][] = [];
    const buffer = new DecisionLogBuffer<number>(
      async (rows) => {
        if (rows[0] === 1) await new Promise<void>((resolve) => (release = resolve));
        written.push(rows);
      },
      POLICY,
      {},
      clock,
    );
    buffer.push(1);
    await clock.advance(100);
    buffer.push(2);
    const closing = buffer.close();
    await settle();
    expect(written).toEqual([]);
    release();
    await closing;
    expect(written).toEqual([[1], [2]]);
  });

  it('rejects a policy that cannot work', () => {
    expect(() => new DecisionLogBuffer<number>(async () => {}, { ...POLICY, capacity: 2, batchRows: 3 })).toThrow(/invalid/);
    expect(() => new DecisionLogBuffer<number>(async () => {}, { ...POLICY, maxAttempts: 0 })).toThrow(/invalid/);
  });
});
