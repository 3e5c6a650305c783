import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BACKGROUND_GATE_OPTIONS } from './database.tokens.js';

export interface BackgroundGateOptions {
  /**
   * Whether turns wait for the foreground: on PGlite, which runs one transaction at a time (`auto`: asks the
   * server's `version()` once — the tests and the benchmarks reach an embedded database through DATABASE_URL
   * too). PostgreSQL runs a background transaction beside the requests' own backends, so there turns only
   * take their round-robin order, one at a time, with a yield to the event loop between them.
   */
  foregroundFirst: boolean | 'auto';
  /** A background turn starts only after no foreground statement has held or waited for a connection for this long. */
  quietMs: number;
  /**
   * The background's guaranteed share: a turn that has waited this many times the length of the tenant's last
   * turn starts anyway (1 = the background gets about half of the database when the foreground never pauses).
   */
  starvationFactor: number;
  /** A turn never waits longer than this, whatever the foreground does. */
  maxWaitMs: number;
}

/**
 * How background work runs one database step: a job passes its {@link BackgroundGate} turn
 * (`(work) => gate.run(tenantId, work)`), a request {@link runStepNow}.
 */
export type BackgroundStep = <T>(work: () => Promise<T>) => Promise<T>;

/** The step of work that is not background (a request's own writes): runs it at once. */
export const runStepNow: BackgroundStep = (work) => work();

export const DEFAULT_BACKGROUND_GATE_OPTIONS: BackgroundGateOptions = { foregroundFirst: 'auto', quietMs: 10, starvationFactor: 1, maxWaitMs: 1000 };

/** The slice of pg-pool's `Pool` the gate reads (its public counters and events). */
interface PoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  on(event: 'acquire', listener: (client: object) => void): unknown;
  on(event: 'release', listener: (error: unknown, client: object) => void): unknown;
  on(event: 'remove', listener: (client: object) => void): unknown;
}

/** Pool pressure right now, for `/health` (DatabaseHealth). */
export interface DatabaseLoad {
  /** Pool connections held by foreground (request) work. */
  foregroundActive: number;
  /** Requests waiting for a pool connection. */
  waiting: number;
  /** How long the oldest foreground statement now in flight has held its connection (queued behind other work, or slow); 0 when none. */
  oldestForegroundMs: number;
}

interface Waiter {
  tenantId: string;
  since: number;
}

/**
 * Foreground first on the database (issue 29 item 3; docs/hot-paths.md "Imports: foreground first"). The
 * embedded database runs one transaction at a time, so a background transaction (an import's write) makes
 * every request that arrives meanwhile wait for all of it. Background work therefore runs its transactions
 * through {@link BackgroundGate.run}: one background turn at a time in the process, started only when no HTTP
 * request is in flight ({@link BackgroundGate.requestStarted}), no foreground statement holds or waits for a pool
 * connection and none has for `quietMs`, tenants
 * taking turns round-robin (the tenant whose last turn ended longest ago goes first). A turn that has waited
 * `starvationFactor` × the tenant's last turn (at most `maxWaitMs`) starts anyway, so a foreground that never
 * pauses still leaves background work its share. Keeping each turn short (small transactions) is the
 * caller's part: a request that arrives during a turn waits for the rest of it.
 *
 * Statements run inside a turn are told apart from foreground ones by an AsyncLocalStorage mark read in the
 * pool's `acquire` event (pg-pool acquires in a `process.nextTick` of the caller's `connect`, which keeps
 * the caller's async context).
 */
@Injectable()
export class BackgroundGate {
  private readonly mark = new AsyncLocalStorage<true>();
  private readonly backgroundClients = new WeakSet<object>();
  /** Pool clients checked out now, with when. */
  private readonly busy = new Map<object, number>();
  private lastForegroundAt = Number.NEGATIVE_INFINITY;
  private readonly waiters: Waiter[] = [];
  private readonly lastTurn = new Map<string, { endedAt: number; ms: number }>();
  private running = false;
  /** HTTP requests being served now (`requestStarted`): foreground from their first byte to their last. */
  private requestsInFlight = 0;
  private pool: PoolLike | null | undefined;
  private foregroundFirst: Promise<boolean> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Optional() @Inject(BACKGROUND_GATE_OPTIONS) private readonly options: BackgroundGateOptions = DEFAULT_BACKGROUND_GATE_OPTIONS,
  ) {}

  /**
   * Runs `work` as one background turn of `tenantId` (see the class comment); its statements count as background.
   * A call from inside a turn runs at once, as part of that turn (a nested turn would wait for itself).
   */
  async run<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    // Already inside a turn (a step that calls another, e.g. a job's progress within its write): that turn goes on.
    if (this.mark.getStore()) return work();
    const foregroundFirst = await this.waitsForForeground();
    const waiter: Waiter = { tenantId, since: performance.now() };
    this.waiters.push(waiter);
    try {
      // PostgreSQL: a yield to the event loop, then the turn in round-robin order.
      if (!foregroundFirst) await sleep(0);
      while (!this.mayStart(waiter, foregroundFirst)) await sleep(this.pollMs());
    } finally {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
    }
    this.running = true;
    const started = performance.now();
    try {
      return await this.mark.run(true, work);
    } finally {
      const endedAt = performance.now();
      this.lastTurn.set(tenantId, { endedAt, ms: endedAt - started });
      this.running = false;
    }
  }

  /**
   * Marks an HTTP request as foreground until the returned function is called (again: a no-op). While one is in
   * flight no turn starts (but for the share), so a turn never slips in between a request's statements however far
   * apart its CPU work puts them (docs/hot-paths.md "Imports: foreground first"); the pool's view alone saw only the
   * statements.
   */
  requestStarted(): () => void {
    this.requestsInFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.requestsInFlight--;
      this.lastForegroundAt = performance.now();
    };
  }

  /** Foreground pressure on the pool now (for `/health`). */
  load(): DatabaseLoad {
    const pool = this.watchPool();
    if (!pool) return { foregroundActive: 0, waiting: 0, oldestForegroundMs: 0 };
    const now = performance.now();
    let oldest = now;
    for (const [client, at] of this.busy) if (!this.backgroundClients.has(client) && at < oldest) oldest = at;
    return { foregroundActive: this.foregroundActive(), waiting: pool.waitingCount, oldestForegroundMs: Math.round(now - oldest) };
  }

  private waitsForForeground(): Promise<boolean> {
    const configured = this.options.foregroundFirst;
    if (configured !== 'auto') return Promise.resolve(configured);
    this.foregroundFirst ??= this.dataSource.query<{ version: string }[]>('SELECT version() AS version').then(
      (rows) => /PGlite/i.test(rows[0]?.version ?? ''),
      () => {
        this.foregroundFirst = undefined; // the database is away: ask again next time, wait for the foreground meanwhile
        return true;
      },
    );
    return this.foregroundFirst;
  }

  private mayStart(waiter: Waiter, foregroundFirst: boolean): boolean {
    if (this.running || this.next() !== waiter) return false;
    const pool = this.watchPool();
    if (!pool || !foregroundFirst) return true;
    const now = performance.now();
    const waited = now - waiter.since;
    const last = this.lastTurn.get(waiter.tenantId);
    // The share: a turn that has waited as long as the tenant's last turn lasted (× starvationFactor; a first
    // turn: quietMs) starts whatever the foreground does, so a busy foreground leaves the background ~1/(1+factor).
    if (waited >= Math.min(this.options.maxWaitMs, (last?.ms ?? this.options.quietMs) * this.options.starvationFactor)) return true;
    if (this.requestsInFlight > 0 || pool.waitingCount > 0 || this.foregroundActive() > 0) {
      this.lastForegroundAt = now;
      return false;
    }
    return now - this.lastForegroundAt >= this.options.quietMs;
  }

  /** The waiter whose tenant's last turn ended longest ago (never-served tenants first), oldest first among equals. */
  private next(): Waiter | undefined {
    let best: Waiter | undefined;
    let bestEnded = Number.POSITIVE_INFINITY;
    for (const w of this.waiters) {
      const ended = this.lastTurn.get(w.tenantId)?.endedAt ?? Number.NEGATIVE_INFINITY;
      if (ended < bestEnded || (ended === bestEnded && best !== undefined && w.since < best.since)) {
        best = w;
        bestEnded = ended;
      }
    }
    return best;
  }

  private pollMs(): number {
    return Math.max(1, Math.min(5, this.options.quietMs / 2));
  }

  private foregroundActive(): number {
    let n = 0;
    for (const client of this.busy.keys()) if (!this.backgroundClients.has(client)) n++;
    return n;
  }

  /** The TypeORM pool (pg-pool), watched from first use; null where the driver has none (not PostgreSQL). */
  private watchPool(): PoolLike | null {
    if (this.pool !== undefined) return this.pool;
    const master = (this.dataSource.driver as unknown as { master?: unknown }).master;
    if (!isPool(master)) return (this.pool = null);
    master.on('acquire', (client) => {
      this.busy.set(client, performance.now());
      if (this.mark.getStore()) this.backgroundClients.add(client);
      else this.backgroundClients.delete(client);
    });
    const released = (client: object) => {
      if (this.busy.delete(client) && !this.backgroundClients.has(client)) this.lastForegroundAt = performance.now();
    };
    master.on('release', (_error, client) => released(client));
    master.on('remove', released);
    return (this.pool = master);
  }
}

function isPool(value: unknown): value is PoolLike {
  const v = value as Partial<PoolLike> | null | undefined;
  return typeof v?.totalCount === 'number' && typeof v.waitingCount === 'number' && typeof v.on === 'function';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
