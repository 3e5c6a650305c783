/**
 * The decision log's in-process write buffer (docs/decision-log.md "Decision log"). Pure: no Nest, no
 * database — the owner passes the flush function (one multi-row INSERT) and the observers.
 *
 * Policy:
 * - `push` is synchronous and O(1) amortised: the request path never waits for the database.
 * - A flush runs `intervalMs` after the first row entered an empty buffer, or as soon as `batchRows`
 *   rows are waiting (on the next turn of the event loop, never inside `push`). One flush at a time;
 *   each writes at most `batchRows` rows in one call, and flushes again at once while a full batch waits.
 * - Bounded: at most `capacity` rows wait. When full, the oldest row is dropped (`onDrop('full')`).
 * - A failed flush puts its rows back at the front and retries on the next interval; a row that failed
 *   `maxAttempts` flushes is dropped (`onDrop('failed')`), so one bad row cannot block the log. The flush
 *   function must be idempotent (rows carry their id: ON CONFLICT DO NOTHING).
 * - `close` stops accepting rows (later pushes: `onDrop('closed')`) and flushes what waits.
 *
 * A crash loses what waits in memory: at most one flush window (~`intervalMs`) of decisions, or more
 * while the database is unreachable (then at most `capacity` rows).
 */
export interface DecisionLogBufferPolicy {
  /** Milliseconds between the first waiting row and its flush. */
  intervalMs: number;
  /** Rows per flush (one INSERT); this many waiting rows trigger a flush at once. */
  batchRows: number;
  /** Rows that may wait; beyond it the oldest are dropped. */
  capacity: number;
  /** Flushes a row may fail before it is dropped. */
  maxAttempts: number;
}

export const DEFAULT_DECISION_LOG_BUFFER_POLICY: DecisionLogBufferPolicy = { intervalMs: 100, batchRows: 500, capacity: 20_000, maxAttempts: 3 };

export type DecisionLogDropReason = 'full' | 'failed' | 'closed';

export interface DecisionLogBufferObserver {
  onDrop?(reason: DecisionLogDropReason, rows: number): void;
  onFlush?(rows: number, ms: number): void;
  onError?(error: unknown, rows: number): void;
}

/** Timers, injectable for tests. */
export interface BufferClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Runs `fn` on a later turn of the event loop (a full batch is flushed there, not inside `push`). */
  defer(fn: () => void): void;
  now(): number;
}

const NODE_CLOCK: BufferClock = {
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  defer: (fn) => {
    setImmediate(fn).unref();
  },
  now: () => performance.now(),
};

interface Waiting<T> {
  row: T;
  attempts: number;
}

export class DecisionLogBuffer<T> {
  private queue: Waiting<T>[] = [];
  /** Index of the first live entry of `queue` (dropping the oldest is O(1); compacted on flush). */
  private head = 0;
  private timer: unknown = null;
  private deferred = false;
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** After a failure, the next flush waits a whole interval (no hot retry loop while the database is away). */
  private retryPending = false;

  constructor(
    private readonly write: (rows: T[]) => Promise<void>,
    private readonly policy: DecisionLogBufferPolicy = DEFAULT_DECISION_LOG_BUFFER_POLICY,
    private readonly observer: DecisionLogBufferObserver = {},
    private readonly clock: BufferClock = NODE_CLOCK,
  ) {
    if (!(policy.batchRows >= 1 && policy.capacity >= policy.batchRows && policy.intervalMs >= 0 && policy.maxAttempts >= 1)) {
      throw new Error(`invalid decision log buffer policy ${JSON.stringify(policy)}`);
    }
  }

  /** Rows waiting to be written. */
  get size(): number {
    return this.queue.length - this.head;
  }

  /** Enqueues a row; never blocks, never throws for a full buffer (the oldest row is dropped instead). */
  push(row: T): void {
    if (this.closed) {
      this.observer.onDrop?.('closed', 1);
      return;
    }
    if (this.size >= this.policy.capacity) {
      this.head++;
      this.observer.onDrop?.('full', 1);
    }
    this.queue.push({ row, attempts: 0 });
    this.schedule();
  }

  /** Writes everything waiting (one batch at a time); resolves when the buffer is empty or a flush failed. */
  async drain(): Promise<void> {
    while (this.size > 0) {
      const before = this.size;
      await this.flush();
      if (this.size >= before) return;
    }
  }

  /** Stops accepting rows and writes what waits (each row gets one last attempt). */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelTimer();
    await this.flushing;
    for (const w of this.queue.slice(this.head)) w.attempts = Math.max(w.attempts, this.policy.maxAttempts - 1);
    await this.drain();
    if (this.size > 0) {
      this.observer.onDrop?.('failed', this.size);
      this.queue = [];
      this.head = 0;
    }
  }

  /** Writes one batch (waits for a running flush first). */
  flush(): Promise<void> {
    if (this.flushing !== null) return this.flushing.then(() => this.flush());
    this.cancelTimer();
    if (this.size === 0) return Promise.resolve();
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = null;
      if (!this.closed) this.schedule();
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const end = Math.min(this.queue.length, this.head + this.policy.batchRows);
    const batch = this.queue.slice(this.head, end);
    this.queue = this.queue.slice(end);
    this.head = 0;
    const started = this.clock.now();
    try {
      await this.write(batch.map((w) => w.row));
      this.observer.onFlush?.(batch.length, this.clock.now() - started);
    } catch (error) {
      this.observer.onError?.(error, batch.length);
      const retry = batch.filter((w) => ++w.attempts < this.policy.maxAttempts);
      if (retry.length < batch.length) this.observer.onDrop?.('failed', batch.length - retry.length);
      // Back at the front, oldest first; rows that arrived meanwhile keep their place, the bound holds.
      this.queue = [...retry, ...this.queue];
      const excess = this.size - this.policy.capacity;
      if (excess > 0) {
        this.head += excess;
        this.observer.onDrop?.('full', excess);
      }
      this.retryPending = true;
    }
  }

  private schedule(): void {
    if (this.flushing !== null || this.size === 0) return;
    if (this.size >= this.policy.batchRows && !this.retryPending) {
      if (this.deferred) return;
      this.deferred = true;
      this.clock.defer(() => {
        this.deferred = false;
        if (this.size >= this.policy.batchRows && this.flushing === null && !this.closed) void this.flush();
      });
      return;
    }
    if (this.timer !== null) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.retryPending = false;
      if (!this.closed) void this.flush();
    }, this.policy.intervalMs);
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
