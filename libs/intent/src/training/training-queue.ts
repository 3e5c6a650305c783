/** How a submitted training ended (a failure or a timeout rejects instead). */
export type TrainingOutcome<R> = { status: 'trained'; result: R } | { status: 'superseded' } | { status: 'cancelled' };

/** Why a running job's signal was aborted (its `reason`). */
export type TrainingStopReason = 'superseded' | 'cancelled' | 'timeout';

/** One execution slot (e.g. a worker thread). Runs one job at a time. */
export interface TrainingRunner<J, R> {
  /**
   * Runs `job`; resolves null when it stopped early because `signal` was aborted (its reason a
   * {@link TrainingStopReason}), rejects when it failed. On `timeout` the runner must stop even a job
   * that does not cooperate (terminate its thread), so the slot becomes free.
   */
  run(job: J, signal: AbortSignal): Promise<R | null>;
}

export class TrainingTimeoutError extends Error {
  constructor(key: string, ms: number) {
    super(`classifier training of ${key} timed out after ${ms} ms`);
    this.name = 'TrainingTimeoutError';
  }
}

export interface TrainingQueueOptions {
  /** A running job longer than this is stopped and its submission rejects with {@link TrainingTimeoutError}. */
  timeoutMs: number;
}

interface Entry<J, R> {
  key: string;
  job: J;
  settle: (outcome: TrainingOutcome<R> | Error) => void;
  controller: AbortController;
  stopReason: TrainingStopReason | null;
}

/**
 * Training jobs keyed by tenant over a fixed set of runners. At most one job per key waits and at most
 * one runs: a newer submission for a key **supersedes** the older one — a waiting one resolves
 * `superseded` at once (the newer one takes its place in line), a running one is asked to stop (its
 * signal aborts with `superseded`) and resolves `superseded` whatever it returns, since its rules are no
 * longer current. Keys are served first come, first served; a key's next job waits until its previous
 * one has left its runner. `close()` cancels everything and resolves once every runner is free.
 */
export class TrainingQueue<J, R> {
  private readonly waiting = new Map<string, Entry<J, R>>();
  private readonly running = new Map<string, Entry<J, R>>();
  private readonly idle: TrainingRunner<J, R>[];
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    runners: readonly TrainingRunner<J, R>[],
    private readonly opts: TrainingQueueOptions,
  ) {
    if (runners.length === 0) throw new Error('a training queue needs at least one runner');
    this.idle = [...runners];
  }

  /** Jobs waiting for a runner. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** Jobs on a runner (including ones asked to stop that have not stopped yet). */
  get runningCount(): number {
    return this.inFlight.size;
  }

  submit(key: string, job: J): Promise<TrainingOutcome<R>> {
    if (this.closed) return Promise.resolve({ status: 'cancelled' });
    return new Promise<TrainingOutcome<R>>((resolve, reject) => {
      let done = false;
      const entry: Entry<J, R> = {
        key,
        job,
        controller: new AbortController(),
        stopReason: null,
        settle: (outcome) => {
          if (done) return;
          done = true;
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        },
      };
      // Map.set on an existing key keeps its position: the newer job takes the older one's place in line.
      this.waiting.get(key)?.settle({ status: 'superseded' });
      this.waiting.set(key, entry);
      const current = this.running.get(key);
      if (current !== undefined) this.stop(current, 'superseded');
      this.pump();
    });
  }

  /** Cancels waiting and running jobs (they resolve `cancelled`) and resolves once every runner is free. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.waiting.values()) entry.settle({ status: 'cancelled' });
    this.waiting.clear();
    for (const entry of this.running.values()) this.stop(entry, 'cancelled');
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private stop(entry: Entry<J, R>, reason: TrainingStopReason): void {
    if (entry.stopReason !== null) return;
    entry.stopReason = reason;
    if (reason === 'timeout') entry.settle(new TrainingTimeoutError(entry.key, this.opts.timeoutMs));
    else entry.settle({ status: reason });
    entry.controller.abort(reason);
  }

  private pump(): void {
    while (!this.closed && this.idle.length > 0) {
      let next: Entry<J, R> | undefined;
      for (const entry of this.waiting.values()) {
        if (!this.running.has(entry.key)) {
          next = entry;
          break;
        }
      }
      if (next === undefined) return;
      const runner = this.idle.shift();
      if (runner === undefined) return;
      this.waiting.delete(next.key);
      this.running.set(next.key, next);
      this.start(runner, next);
    }
  }

  private start(runner: TrainingRunner<J, R>, entry: Entry<J, R>): void {
    const timer = setTimeout(() => this.stop(entry, 'timeout'), this.opts.timeoutMs);
    timer.unref();
    let run: Promise<R | null>;
    try {
      run = runner.run(entry.job, entry.controller.signal);
    } catch (error) {
      run = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const flight = run
      .then(
        (result) => {
          if (entry.stopReason !== null) return; // already settled as superseded / cancelled / timed out
          entry.settle(result === null ? { status: 'cancelled' } : { status: 'trained', result });
        },
        (error: unknown) => entry.settle(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.running.get(entry.key) === entry) this.running.delete(entry.key);
        this.inFlight.delete(flight);
        this.idle.push(runner);
        this.pump();
      });
    this.inFlight.add(flight);
  }
}
