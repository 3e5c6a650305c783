import { describe, expect, it, jest } from '@jest/globals';
import { TrainingQueue, TrainingTimeoutError, type TrainingRunner } from './training-queue.js';

interface Call {
  job: string;
  signal: AbortSignal;
  finish: (result: string | null) => void;
  fail: (error: Error) => void;
}

/** A runner whose jobs end only when the test says so (no timing involved). */
class ManualRunner implements TrainingRunner<string, string> {
  readonly calls: Call[] = [];
  /** Stops (resolves null) as soon as its signal aborts, like the worker's cancel flag. */
  constructor(private readonly cooperative = true) {}
  run(job: string, signal: AbortSignal): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.calls.push({ job, signal, finish: resolve, fail: reject });
      if (this.cooperative) signal.addEventListener('abort', () => resolve(null), { once: true });
    });
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('TrainingQueue', () => {
  it('runs a job and resolves its result', async () => {
    const runner = new ManualRunner();
    const queue = new TrainingQueue([runner], { timeoutMs: 60_000 });
    const outcome = queue.submit('t1', 'rules-1');
    expect(runner.calls.map((c) => c.job)).toEqual(['rules-1']);
    runner.calls[0].finish('weights-1');
    await expect(outcome).resolves.toEqual({ status: 'trained', result: 'weights-1' });
    await queue.close();
  });

  it('a newer job of a tenant supersedes its waiting one, which keeps its place in line', async () => {
    const runner = new ManualRunner();
    const queue = new TrainingQueue([runner], { timeoutMs: 60_000 });
    const a = queue.submit('a', 'a-1');
    const b1 = queue.submit('b', 'b-1');
    const c = queue.submit('c', 'c-1');
    const b2 = queue.submit('b', 'b-2');
    await expect(b1).resolves.toEqual({ status: 'superseded' });
    expect(queue.waitingCount).toBe(2);
    runner.calls[0].finish('A');
    await expect(a).resolves.toEqual({ status: 'trained', result: 'A' });
    await flush();
    // b's newer job runs before c: it took b-1's place
    expect(runner.calls.map((x) => x.job)).toEqual(['a-1', 'b-2']);
    runner.calls[1].finish('B');
    await expect(b2).resolves.toEqual({ status: 'trained', result: 'B' });
    await flush();
    runner.calls[2].finish('C');
    await expect(c).resolves.toEqual({ status: 'trained', result: 'C' });
    await queue.close();
  });

  it('a newer job of a tenant stops its running one, which resolves superseded even if it returns weights', async () => {
    const runner = new ManualRunner(false);
    const queue = new TrainingQueue([runner], { timeoutMs: 60_000 });
    const first = queue.submit('t', 'v1');
    const second = queue.submit('t', 'v2');
    expect(runner.calls[0].signal.aborted).toBe(true);
    expect(runner.calls[0].signal.reason).toBe('superseded');
    await expect(first).resolves.toEqual({ status: 'superseded' });
    // the same tenant never trains twice at once: v2 waits for v1 to leave the runner
    expect(runner.calls).toHaveLength(1);
    runner.calls[0].finish('stale weights');
    await flush();
    expect(runner.calls.map((c) => c.job)).toEqual(['v1', 'v2']);
    runner.calls[1].finish('W2');
    await expect(second).resolves.toEqual({ status: 'trained', result: 'W2' });
    await queue.close();
  });

  it('runs different tenants in parallel up to the number of runners', async () => {
    const r1 = new ManualRunner();
    const r2 = new ManualRunner();
    const queue = new TrainingQueue([r1, r2], { timeoutMs: 60_000 });
    const outcomes = [queue.submit('a', 'a'), queue.submit('b', 'b'), queue.submit('c', 'c')];
    expect([...r1.calls, ...r2.calls].map((c) => c.job).sort()).toEqual(['a', 'b']);
    expect(queue.waitingCount).toBe(1);
    r1.calls[0].finish('1');
    await flush();
    expect(r1.calls.map((c) => c.job)).toEqual(['a', 'c']);
    r2.calls[0].finish('2');
    r1.calls[1].finish('3');
    await expect(Promise.all(outcomes)).resolves.toHaveLength(3);
    await queue.close();
  });

  it('a failing job rejects and frees its runner for the next one', async () => {
    const runner = new ManualRunner();
    const queue = new TrainingQueue([runner], { timeoutMs: 60_000 });
    const bad = queue.submit('a', 'a');
    const next = queue.submit('b', 'b');
    runner.calls[0].fail(new Error('boom'));
    await expect(bad).rejects.toThrow('boom');
    await flush();
    runner.calls[1].finish('ok');
    await expect(next).resolves.toEqual({ status: 'trained', result: 'ok' });
    await queue.close();
  });

  it('a job over the timeout rejects with TrainingTimeoutError and its runner is told to stop', async () => {
    jest.useFakeTimers();
    try {
      const runner = new ManualRunner(false);
      const queue = new TrainingQueue([runner], { timeoutMs: 1_000 });
      const outcome = queue.submit('slow', 'x');
      jest.advanceTimersByTime(1_000);
      await expect(outcome).rejects.toBeInstanceOf(TrainingTimeoutError);
      expect(runner.calls[0].signal.reason).toBe('timeout');
      runner.calls[0].finish(null);
      await queue.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('close cancels waiting and running jobs and resolves once the runners are free; later submissions are cancelled', async () => {
    const runner = new ManualRunner(false);
    const queue = new TrainingQueue([runner], { timeoutMs: 60_000 });
    const running = queue.submit('a', 'a');
    const waiting = queue.submit('b', 'b');
    let closed = false;
    const closing = queue.close().then(() => {
      closed = true;
    });
    await expect(waiting).resolves.toEqual({ status: 'cancelled' });
    await expect(running).resolves.toEqual({ status: 'cancelled' });
    expect(runner.calls[0].signal.reason).toBe('cancelled');
    await flush();
    expect(closed).toBe(false); // the runner has not stopped yet
    runner.calls[0].finish(null);
    await closing;
    expect(closed).toBe(true);
    expect(runner.calls).toHaveLength(1);
    await expect(queue.submit('c', 'c')).resolves.toEqual({ status: 'cancelled' });
  });
});
