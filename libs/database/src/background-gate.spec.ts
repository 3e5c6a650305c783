import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { BackgroundGate, type BackgroundGateOptions } from './background-gate.js';

/** A pg-pool stand-in: clients are checked out and released by the test, which emits the pool's events. */
class FakePool extends EventEmitter {
  totalCount = 4;
  idleCount = 4;
  waitingCount = 0;

  checkOut(): object {
    const client = {};
    this.emit('acquire', client);
    return client;
  }

  release(client: object): void {
    this.emit('release', undefined, client);
  }
}

function gateOn(pool: FakePool, options: Partial<BackgroundGateOptions> = {}): BackgroundGate {
  const dataSource = { driver: { master: pool }, query: () => Promise.resolve([{ version: 'PostgreSQL 18.6 (PGlite 0.5.14)' }]) } as unknown as DataSource;
  return new BackgroundGate(dataSource, { foregroundFirst: 'auto', quietMs: 10, starvationFactor: 1, maxWaitMs: 1000, ...options });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BackgroundGate', () => {
  it('starts a turn only once the foreground has released its connections and stayed quiet', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool, { maxWaitMs: 10_000, starvationFactor: 100 });
    await gate.run('t1', () => sleep(20)); // a first turn: the tenant's last turn sets the share below
    const client = pool.checkOut();
    let started = false;
    const turn = gate.run('t1', async () => {
      started = true;
    });
    await sleep(100);
    expect(started).toBe(false);
    pool.release(client);
    await turn;
    expect(started).toBe(true);
  });

  it('waits while an HTTP request is in flight, even with no statement of it on the pool, and starts once it ends', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool, { maxWaitMs: 10_000, starvationFactor: 100 });
    await gate.run('t1', () => sleep(20));
    const ended = gate.requestStarted();
    let started = false;
    const turn = gate.run('t1', async () => {
      started = true;
    });
    await sleep(100);
    expect(started).toBe(false);
    ended();
    ended(); // a second call changes nothing: the count never goes below the requests really in flight
    await turn;
    expect(started).toBe(true);
    await gate.run('t1', () => sleep(20)); // a long last turn again: the share stays far away
    const other = gate.requestStarted(); // in flight: 1 (0 had the second call above counted)
    let next = false;
    const second = gate.run('t1', async () => {
      next = true;
    });
    await sleep(50);
    expect(next).toBe(false);
    other();
    await second;
    expect(next).toBe(true);
  });

  it('starts anyway once a turn has waited as long as its tenant last turn lasted (the share)', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool);
    await gate.run('t1', () => sleep(30));
    pool.checkOut(); // a foreground that never lets go
    const waited = performance.now();
    await gate.run('t1', () => Promise.resolve());
    expect(performance.now() - waited).toBeGreaterThanOrEqual(25);
  });

  it('does not count the turn own statements as foreground, and runs one turn at a time', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool, { maxWaitMs: 10_000, starvationFactor: 100 });
    let concurrent = 0;
    let most = 0;
    const turn = () =>
      gate.run('t1', async () => {
        concurrent++;
        most = Math.max(most, concurrent);
        const own = pool.checkOut();
        await sleep(5);
        pool.release(own);
        concurrent--;
      });
    await Promise.all([turn(), turn(), turn()]);
    expect(most).toBe(1);
    expect(gate.load()).toMatchObject({ foregroundActive: 0, waiting: 0 });
  });

  it('runs a turn started from inside a turn at once, as part of it (no wait for itself)', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool, { maxWaitMs: 10_000, starvationFactor: 100 });
    const order: string[] = [];
    const outer = gate.run('t1', async () => {
      order.push('outer');
      const inner = await gate.run('t1', () => Promise.resolve('inner'));
      order.push(inner);
    });
    const other = gate.run('t2', () => Promise.resolve(order.push('other')));
    let timer: NodeJS.Timeout | undefined;
    const deadlock = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('a nested turn waited for itself')), 2_000)));
    await Promise.race([Promise.all([outer, other]), deadlock]).finally(() => clearTimeout(timer));
    expect(order).toEqual(['outer', 'inner', 'other']);
  });

  it('serves tenants round-robin: the one whose last turn ended longest ago first', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool);
    const order: string[] = [];
    await gate.run('a', () => Promise.resolve(order.push('a')));
    const blocker = pool.checkOut();
    const turns = [gate.run('a', () => Promise.resolve(order.push('a'))), gate.run('b', () => Promise.resolve(order.push('b')))];
    await sleep(1);
    pool.release(blocker);
    await Promise.all(turns);
    expect(order).toEqual(['a', 'b', 'a']);
  });

  it('on PostgreSQL does not wait for the foreground', async () => {
    const pool = new FakePool();
    const dataSource = { driver: { master: pool }, query: () => Promise.resolve([{ version: 'PostgreSQL 15.20 (Debian)' }]) } as unknown as DataSource;
    const gate = new BackgroundGate(dataSource, { foregroundFirst: 'auto', quietMs: 10, starvationFactor: 100, maxWaitMs: 10_000 });
    pool.checkOut();
    const started = performance.now();
    await gate.run('t1', () => Promise.resolve());
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reports the foreground load for /health: waiting requests and the oldest statement in flight', async () => {
    const pool = new FakePool();
    const gate = gateOn(pool);
    expect(gate.load()).toEqual({ foregroundActive: 0, waiting: 0, oldestForegroundMs: 0 });
    pool.checkOut();
    pool.waitingCount = 3;
    await sleep(30);
    const load = gate.load();
    expect(load).toMatchObject({ foregroundActive: 1, waiting: 3 });
    expect(load.oldestForegroundMs).toBeGreaterThanOrEqual(25);
  });
});
