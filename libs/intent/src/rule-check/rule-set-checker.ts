import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RULE_SET_MAX_MEM, type PatternRef, type RuleSetCheck } from '../routing/rule-set-check.js';

/**
 * Time limit of one rule-set check (compiling a tenant's whole pattern set, or finding why it does not
 * compile). A set within the program-size limit compiles in ≤ ~0.1 s and a refusal takes a few set compiles,
 * so this only ends pathological cases; the thread is then terminated and the set treated as not compiling.
 */
export const RULE_SET_CHECK_TIMEOUT_MS = 5_000;

/** How a check ended: `checkRuleSet`'s result, or the time limit, or a crash of the thread. */
export type RuleSetCheckOutcome = RuleSetCheck | { status: 'timeout'; timeoutMs: number } | { status: 'failed'; reason: string };

/**
 * `serve`: compiling a tenant's stored rules for its router (runs first); `write`: checking a rule write or a
 * draft rule set before anything is written.
 */
export type CheckLane = 'serve' | 'write';

/** @internal The worker protocol. */
export interface CheckRequest {
  id: number;
  patterns: PatternRef[];
  maxMem: number;
}
/** @internal */
export type CheckReply = { type: 'ready' } | { type: 'checked'; id: number; result: RuleSetCheck; ms: number } | { type: 'error'; id: number; error: string };

/**
 * Runs one check at a time (a worker thread), calling `started` when the check itself begins (after a thread
 * start, which must not count against the time limit). `terminate` abandons a running check (its `run` then
 * rejects, possibly later) and the next `run` must not wait for it.
 */
export interface RuleSetCheckRunner {
  run(patterns: PatternRef[], maxMem: number, started: () => void): Promise<RuleSetCheck>;
  terminate(): Promise<void>;
}

interface Job {
  tenantId: string;
  patterns: PatternRef[];
  resolve: (outcome: RuleSetCheckOutcome) => void;
}

export interface RuleSetCheckerOptions {
  timeoutMs?: number;
  maxMem?: number;
  runner?: RuleSetCheckRunner;
}

/**
 * Compiles tenants' regex rule sets off the API's thread (libs/intent/src/routing/README.md "Regex rule sets"): one
 * worker thread, one check at a time, bounded by the RE2 program-size limit and {@link RULE_SET_CHECK_TIMEOUT_MS}.
 * Waiting checks are taken round-robin by tenant (serve lane before write lane), so a tenant submitting
 * many expensive checks delays another tenant's check by at most one of them. Checks of an empty pattern
 * set answer at once without the thread.
 */
export class RuleSetChecker {
  private readonly timeoutMs: number;
  private readonly maxMem: number;
  private readonly runner: RuleSetCheckRunner;
  private readonly lanes: Record<CheckLane, Map<string, Job[]>> = { serve: new Map(), write: new Map() };
  private running = false;
  private closed = false;
  private readonly counts = new Map<string, number>();

  constructor(opts: RuleSetCheckerOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? RULE_SET_CHECK_TIMEOUT_MS;
    this.maxMem = opts.maxMem ?? RULE_SET_MAX_MEM;
    this.runner = opts.runner ?? new WorkerRuleSetCheckRunner();
  }

  /** Checks run on the thread for `tenantId` in `lane` (observability and tests; reset past 10,000 keys). */
  checksRun(tenantId: string, lane: CheckLane): number {
    return this.counts.get(`${lane}:${tenantId}`) ?? 0;
  }

  check(tenantId: string, lane: CheckLane, patterns: PatternRef[]): Promise<RuleSetCheckOutcome> {
    if (patterns.length === 0) return Promise.resolve({ status: 'ok', invalid: [] });
    if (this.closed) return Promise.resolve({ status: 'failed', reason: 'the rule set checker is closed' });
    return new Promise<RuleSetCheckOutcome>((resolve) => {
      const queue = this.lanes[lane];
      const jobs = queue.get(tenantId);
      const job: Job = { tenantId, patterns, resolve };
      if (jobs !== undefined) jobs.push(job);
      else queue.set(tenantId, [job]);
      this.count(`${lane}:${tenantId}`);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of Object.values(this.lanes)) {
      for (const jobs of queue.values()) for (const job of jobs) job.resolve({ status: 'failed', reason: 'the rule set checker is closed' });
      queue.clear();
    }
    await this.runner.terminate();
  }

  private count(key: string): void {
    if (this.counts.size > 10_000) this.counts.clear();
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** The next job: serve lane first; within a lane the tenant waiting longest, which then goes to the back. */
  private take(): Job | undefined {
    for (const queue of [this.lanes.serve, this.lanes.write]) {
      const first = queue.entries().next();
      if (first.done === true) continue;
      const [tenantId, jobs] = first.value;
      const job = jobs.shift();
      queue.delete(tenantId);
      if (jobs.length > 0) queue.set(tenantId, jobs);
      if (job !== undefined) return job;
    }
    return undefined;
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const job = this.take();
    if (job === undefined) return;
    this.running = true;
    void this.execute(job).finally(() => {
      this.running = false;
      this.pump();
    });
  }

  /**
   * Runs a job against its time limit. At the limit the job answers `timeout` at once and its thread is
   * terminated without waiting: a thread inside RE2's native compile only exits when that compile returns
   * (V8 cannot interrupt native code), so the next job starts on a new thread meanwhile. The program-size
   * limit keeps such a leftover compile short.
   */
  private async execute(job: Job): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let startLimit: () => void = () => undefined;
    const limit = new Promise<'timeout'>((resolve) => {
      startLimit = () => {
        timer ??= setTimeout(() => resolve('timeout'), this.timeoutMs);
      };
    });
    const run = this.runner
      .run(job.patterns, this.maxMem, () => startLimit())
      .then(
        (result): RuleSetCheckOutcome => result,
        (error: unknown): RuleSetCheckOutcome => ({ status: 'failed', reason: error instanceof Error ? error.message : String(error) }),
      );
    const outcome = await Promise.race([run, limit]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      void this.runner.terminate();
      job.resolve({ status: 'timeout', timeoutMs: this.timeoutMs });
    } else job.resolve(outcome);
  }
}

/** The compile thread (`worker_threads`): started on first use, kept between checks, restarted after a termination. */
export class WorkerRuleSetCheckRunner implements RuleSetCheckRunner {
  private worker: { thread: Worker; ready: Promise<void> } | null = null;
  private nextId = 1;

  async run(patterns: PatternRef[], maxMem: number, started: () => void): Promise<RuleSetCheck> {
    const worker = (this.worker ??= this.spawn());
    const { thread } = worker;
    const id = this.nextId++;
    thread.ref();
    try {
      await worker.ready;
    } catch (error) {
      if (this.worker === worker) thread.unref();
      throw error;
    }
    return new Promise<RuleSetCheck>((resolve, reject) => {
      let lastError: Error | undefined;
      const cleanup = (): void => {
        thread.off('message', onMessage);
        thread.off('error', onError);
        thread.off('exit', onExit);
        if (this.worker === worker) thread.unref();
      };
      const onMessage = (reply: CheckReply): void => {
        if (reply.type === 'ready' || reply.id !== id) return;
        cleanup();
        if (reply.type === 'checked') resolve(reply.result);
        else reject(new Error(`rule set check failed: ${reply.error}`));
      };
      const onError = (error: Error): void => {
        lastError = error;
      };
      const onExit = (code: number): void => {
        cleanup();
        if (this.worker === worker) this.worker = null;
        reject(lastError ?? new Error(`the rule set check thread exited with code ${code}`));
      };
      thread.on('message', onMessage);
      thread.on('error', onError);
      thread.on('exit', onExit);
      const request: CheckRequest = { id, patterns, maxMem };
      thread.postMessage(request);
      started();
    });
  }

  async terminate(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker === null) return;
    // An abandoned thread finishing a native compile must not hold the process open meanwhile.
    worker.thread.unref();
    await worker.thread.terminate();
  }

  private spawn(): { thread: Worker; ready: Promise<void> } {
    const thread = new Worker(workerEntry.url, { execArgv: workerEntry.execArgv, name: 'intent-rule-set-check' });
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onReady = (reply: CheckReply): void => {
        if (reply.type !== 'ready') return;
        thread.off('message', onReady);
        resolve();
      };
      thread.on('message', onReady);
      thread.once('exit', (code) => reject(new Error(`the rule set check thread exited with code ${code} while starting`)));
    });
    // Observed by run(); a thread that dies before any run must not be an unhandled rejection.
    ready.catch(() => undefined);
    // A check in flight hears of a crash through its own listeners; between checks it only drops the thread.
    thread.on('error', () => undefined);
    const entry = { thread, ready };
    thread.once('exit', () => {
      if (this.worker === entry) this.worker = null;
    });
    return entry;
  }
}

/**
 * The compiled worker beside this file (`npm start`), or — jest, benchmarks and test children run the .ts
 * sources — the .ts through the repo's SWC loader (as the classifier training thread, training/worker-training-runner.ts).
 */
const workerEntry = (() => {
  const self = fileURLToPath(import.meta.url);
  const fromSources = self.endsWith('.ts');
  const url = new URL(`./rule-set-check.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return { url, execArgv: undefined };
  const loader = path.resolve(path.dirname(self), '../../../../bench/support/register.mjs');
  const registered = process.execArgv.some((arg) => arg.endsWith('bench/support/register.mjs'));
  return { url, execArgv: registered ? process.execArgv : [...process.execArgv, '--import', loader] };
})();
