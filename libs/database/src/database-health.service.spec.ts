import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { measureDeadline } from '@arbiter/testing';
import type { BackgroundGate, DatabaseLoad } from './background-gate.js';
import { DatabaseHealth } from './database-health.service.js';

/** A DataSource whose queries resolve or reject only when the test says so. */
function fakeDataSource() {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const dataSource = {
    query: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
  } as unknown as DataSource;
  return { dataSource, pending };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DatabaseHealth.check', () => {
  it('is up with the probe latency when the probe answers within the budget', async () => {
    const { dataSource, pending } = fakeDataSource();
    const health = new DatabaseHealth(dataSource, { answerWithinMs: 200, busyLimitMs: 1000 });
    const answer = health.check();
    pending[0]!.resolve();
    await expect(answer).resolves.toMatchObject({ status: 'up', latencyMs: expect.any(Number) });
  });

  it('is busy, within the budget, while the probe is queued, and shares one probe between polls', async () => {
    const { dataSource, pending } = fakeDataSource();
    const health = new DatabaseHealth(dataSource, { answerWithinMs: 10, busyLimitMs: 1000 });
    // Each poll answers at its 10 ms budget (measured against a reference timer, so CPU contention does not count).
    for (let poll = 0; poll < 2; poll++) {
      const { lateByMs, error } = await measureDeadline(10, async () => expect(await health.check()).toMatchObject({ status: 'busy' }));
      expect(error).toBeUndefined();
      expect(lateByMs).toBeLessThan(100);
    }
    expect(pending).toHaveLength(1);
    pending[0]!.resolve();
    await sleep(0);
    // Once answered, the next poll starts a new probe.
    const next = health.check();
    expect(pending).toHaveLength(2);
    pending[1]!.resolve();
    await expect(next).resolves.toMatchObject({ status: 'up' });
  });

  it('is down at once when the probe fails, and when it stays unanswered past the busy limit', async () => {
    const { dataSource, pending } = fakeDataSource();
    const health = new DatabaseHealth(dataSource, { answerWithinMs: 10, busyLimitMs: 300 });
    const failing = health.check();
    pending[0]!.reject(new Error('connect ECONNREFUSED'));
    await expect(failing).resolves.toEqual({ status: 'down', reason: 'connect ECONNREFUSED' });

    await expect(health.check()).resolves.toMatchObject({ status: 'busy' });
    await sleep(350);
    await expect(health.check()).resolves.toMatchObject({ status: 'down', reason: expect.stringMatching(/^no answer for \d+ ms$/) });
    expect(pending).toHaveLength(2);
  });

  it('is busy, though the probe answered in time, while requests wait for a connection or a request statement is in flight for long', async () => {
    const { dataSource, pending } = fakeDataSource();
    let load: DatabaseLoad = { foregroundActive: 0, waiting: 0, oldestForegroundMs: 0 };
    const gate = { load: () => load } as unknown as BackgroundGate;
    const health = new DatabaseHealth(dataSource, { answerWithinMs: 200, busyLimitMs: 1000, queuedAfterMs: 100 }, gate);
    const answer = (i: number) => {
      const check = health.check();
      pending[i]!.resolve();
      return check;
    };
    await expect(answer(0)).resolves.toMatchObject({ status: 'up' });
    load = { foregroundActive: 8, waiting: 3, oldestForegroundMs: 40 };
    await expect(answer(1)).resolves.toEqual({ status: 'busy', waitingMs: 40, queued: 3 });
    load = { foregroundActive: 1, waiting: 0, oldestForegroundMs: 150 };
    await expect(answer(2)).resolves.toEqual({ status: 'busy', waitingMs: 150, queued: 0 });
    load = { foregroundActive: 1, waiting: 0, oldestForegroundMs: 20 };
    await expect(answer(3)).resolves.toMatchObject({ status: 'up' });
  });
});
