import { afterAll, describe, expect, it } from '@jest/globals';
import { measureDeadline } from '@arbiter/testing';
import { checkRuleSet, type PatternRef, type RuleSetCheck } from '../routing/rule-set-check.js';
import { RuleSetChecker, type CheckLane, type RuleSetCheckRunner } from './rule-set-checker.js';

const refs = (...sources: string[]): PatternRef[] => sources.map((source, index) => ({ ruleId: 'r', index, source }));

/** A runner whose checks end when the test says so; records what ran, in order. */
class ManualRunner implements RuleSetCheckRunner {
  readonly ran: string[] = [];
  terminations = 0;
  private pending: { resolve: (c: RuleSetCheck) => void; reject: (e: Error) => void } | null = null;

  run(patterns: PatternRef[], _maxMem: number, started: () => void): Promise<RuleSetCheck> {
    this.ran.push(patterns[0]!.source);
    started();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }

  finish(): void {
    const p = this.pending;
    this.pending = null;
    p?.resolve({ status: 'ok', invalid: [] });
  }

  terminate(): Promise<void> {
    this.terminations++;
    const p = this.pending;
    this.pending = null;
    p?.reject(new Error('terminated'));
    return Promise.resolve();
  }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('RuleSetChecker (queue, fairness, time limit)', () => {
  it('takes waiting checks round-robin by tenant, the serve lane first', async () => {
    const runner = new ManualRunner();
    const checker = new RuleSetChecker({ runner, timeoutMs: 60_000 });
    const submit = (tenant: string, lane: CheckLane, label: string): Promise<unknown> => checker.check(tenant, lane, refs(label));
    const all = [
      submit('A', 'write', 'A1'),
      submit('A', 'write', 'A2'),
      submit('A', 'write', 'A3'),
      submit('B', 'write', 'B1'),
      submit('C', 'serve', 'C1'),
      submit('A', 'serve', 'A-serve'),
    ];
    for (let i = 0; i < all.length; i++) {
      await tick();
      runner.finish();
    }
    await Promise.all(all);
    // A1 was already running; then serve (C, A), then writes alternating between tenants: B waits for one A check, not three.
    expect(runner.ran).toEqual(['A1', 'C1', 'A-serve', 'A2', 'B1', 'A3']);
    expect(checker.checksRun('A', 'write')).toBe(3);
    expect(checker.checksRun('A', 'serve')).toBe(1);
    await checker.close();
  });

  it('answers an empty set at once without the runner', async () => {
    const runner = new ManualRunner();
    const checker = new RuleSetChecker({ runner });
    await expect(checker.check('A', 'write', [])).resolves.toEqual({ status: 'ok', invalid: [] });
    expect(runner.ran).toEqual([]);
  });

  it('ends a check at its time limit (runner terminated) and runs the next one', async () => {
    const runner = new ManualRunner();
    const checker = new RuleSetChecker({ runner, timeoutMs: 50 });
    const timed = await measureDeadline(50, () => checker.check('A', 'write', refs('slow')));
    expect(runner.terminations).toBe(1);
    expect(timed.lateByMs).toBeLessThan(1_000);
    const next = checker.check('B', 'write', refs('next'));
    await tick();
    runner.finish();
    await expect(next).resolves.toEqual({ status: 'ok', invalid: [] });
    await checker.close();
  });

  it('times out as { status: timeout }, and a crash of the runner as failed', async () => {
    const runner = new ManualRunner();
    const checker = new RuleSetChecker({ runner, timeoutMs: 20 });
    await expect(checker.check('A', 'write', refs('x'))).resolves.toEqual({ status: 'timeout', timeoutMs: 20 });
    const crashed = checker.check('A', 'write', refs('y'));
    await tick();
    await runner.terminate();
    await expect(crashed).resolves.toMatchObject({ status: 'failed' });
    await checker.close();
  });
});

describe('RuleSetChecker on its worker thread', () => {
  const checker = new RuleSetChecker({ timeoutMs: 400, maxMem: 1 << 30 });
  const bounded = new RuleSetChecker();
  afterAll(async () => {
    await checker.close();
    await bounded.close();
  });

  it("a thread's start (loading its sources) does not count against the time limit", async () => {
    const fresh = new RuleSetChecker({ timeoutMs: 200 });
    try {
      await expect(fresh.check('t', 'write', refs('order\\s*#?(\\d{4,})'))).resolves.toEqual({ status: 'ok', invalid: [] });
    } finally {
      await fresh.close();
    }
  });

  it('answers what checkRuleSet answers on this thread (the issue pattern refused by the program-size limit)', async () => {
    const patterns = refs('ok', '([a-z', '\\p{L}{0,200}z', 'later');
    await expect(bounded.check('t', 'write', patterns)).resolves.toEqual(checkRuleSet(patterns));
    await expect(bounded.check('t', 'write', refs('order\\s*#?(\\d{4,})'))).resolves.toEqual({ status: 'ok', invalid: [] });
  });

  it('a compile past the time limit stops at the limit, the event loop ticking all along, and the next check runs on a new thread', async () => {
    await checker.check('warm', 'write', refs('warm-up')); // the thread started (its start does not count against the limit)
    // With a 1 GiB limit nothing refuses this set early: compiling it takes seconds (measured ~170 ms per pattern).
    const slow = Array.from({ length: 12 }, (_, i) => `\\p{L}{0,400}z${i}`);
    let ticks = 0;
    const interval = setInterval(() => ticks++, 5);
    const timed = await measureDeadline(400, async () => {
      await expect(checker.check('slow', 'write', refs(...slow))).resolves.toEqual({ status: 'timeout', timeoutMs: 400 });
    });
    clearInterval(interval);
    expect(timed.error).toBeUndefined();
    expect(timed.lateByMs).toBeLessThan(2_000);
    // A compile on this thread would have allowed no tick at all until it ended.
    expect(ticks).toBeGreaterThan(10);
    await expect(checker.check('next', 'write', refs('after'))).resolves.toEqual({ status: 'ok', invalid: [] });
  });
});
