import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { asTenantId, MetricsService, pageRequest, type Page, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { BackgroundGate, type Db } from '@arbiter/database';
import type { JobRunEntity, JobRunStatus, JobTrigger } from './entities/job-run.entity.js';
import { JobQueueRepository, type ClaimedRun } from './job-queue.repository.js';
import { JobRunsRepository } from './job-runs.repository.js';
import { JOB_CATALOG, JOB_NAMES, isJobName, type JobName, type JobPayload } from './job-catalog.js';
import { bindJobHandlers, JobHandler, type JobRunner } from './job-handler.js';
import {
  assertJobTotal,
  JobLeaseLostError,
  JobStoppedError,
  retryDelayMs,
  type AdHocJobName,
  type JobContext,
  type JobDefinition,
  type JobProgress,
} from './job.types.js';
import { JobsErrorCode, JobsException } from './jobs.exception.js';
import { assertKnownScheduleNames, assertValidCron, nextTick, parseScheduleOverrides } from './schedule.js';

/** A runnable job: a catalogued one bound to its handler at boot, or an ad-hoc test job. */
interface BoundJob {
  maxAttempts: number;
  cron: string | null;
  handler: (ctx: JobContext<never>) => Promise<void>;
}

/**
 * Durable jobs on PostgreSQL. Any process may enqueue; processes with JOBS_ENABLED execute, claimed with SKIP
 * LOCKED under a renewable lease: up to JOBS_CONCURRENCY runs at once, at most one per tenant, so one tenant's
 * long import never holds the worker while another tenant's run waits (docs/FOUNDATION.md "Jobs"; their
 * database steps then share the BackgroundGate round-robin). The jobs are those of
 * JOB_CATALOG, each run by the provider marked `@JobHandler(name)`; the boot fails unless every
 * catalogued name has exactly one handler.
 */
@Injectable()
export class JobsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Jobs');
  private readonly definitions = new Map<string, BoundJob>();
  private readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly nextTicks = new Map<string, Date>();
  private readonly schedules: Record<string, string>;
  private timer: NodeJS.Timeout | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  /** Tenants with a run executing in this process now (the claim skips them): tenant id → runs. */
  private readonly busyTenants = new Map<string, number>();
  /** End runPending's waits (for a finished run or the poll) early: a run was queued meanwhile. */
  private readonly wakeWaiters = new Set<() => void>();
  private readonly runsTotal;
  private readonly runDuration;

  constructor(
    private readonly config: AppConfig,
    private readonly runs: JobRunsRepository,
    private readonly queue: JobQueueRepository,
    private readonly discovery: DiscoveryService,
    private readonly gate: BackgroundGate,
    metrics: MetricsService,
  ) {
    this.schedules = parseScheduleOverrides(config.jobs.schedules);
    this.runsTotal = metrics.counter('arbiter_job_runs_total', 'Job run attempts by outcome', ['job', 'outcome']);
    this.runDuration = metrics.histogram('arbiter_job_run_duration_seconds', 'Job run attempt duration', ['job'], [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 1800]);
  }

  /** The boot check: binds every catalogued job to its one `@JobHandler` provider (throws otherwise). */
  onModuleInit(): void {
    const found = this.discovery.getProviders({ metadataKey: JobHandler.KEY }).flatMap((wrapper) => {
      const name = this.discovery.getMetadataByDecorator(JobHandler, wrapper);
      return name && wrapper.instance
        ? [{ name, source: `${wrapper.name} in ${wrapper.host?.name ?? '?'}`, runner: wrapper.instance as JobRunner<JobName> }]
        : [];
    });
    assertKnownScheduleNames(this.schedules, JOB_NAMES);
    for (const [name, { runner }] of bindJobHandlers(JOB_NAMES, found)) {
      const spec: { maxAttempts: number; cron?: string } = JOB_CATALOG[name as JobName];
      if (spec.cron) assertValidCron(spec.cron);
      const scheduled = runner.isScheduled?.() ?? true;
      this.definitions.set(name, { maxAttempts: spec.maxAttempts, cron: scheduled ? (spec.cron ?? null) : null, handler: (ctx) => runner.run(ctx) });
    }
  }

  /** An ad-hoc job outside the catalog, for the jobs framework's own tests (names start with `test.`). */
  defineAdHoc<P>(definition: JobDefinition<P>): void {
    if (!definition.name.startsWith('test.') || isJobName(definition.name)) throw new Error(`Ad-hoc job names start with "test.": ${definition.name}`);
    if (this.definitions.has(definition.name)) throw new Error(`Job ${definition.name} is defined twice`);
    if (definition.cron) assertValidCron(definition.cron);
    this.definitions.set(definition.name, {
      maxAttempts: definition.maxAttempts ?? 3,
      cron: definition.cron ?? null,
      handler: definition.handler as (ctx: JobContext<never>) => Promise<void>,
    });
  }

  /** The effective cron of a job (JOBS_SCHEDULES override, else its default), or null when unscheduled. */
  scheduleOf(name: string): string | null {
    const override = this.schedules[name];
    if (override === 'off') return null;
    return override ?? this.definitions.get(name)?.cron ?? null;
  }

  async enqueue<N extends JobName | AdHocJobName>(
    tenantId: TenantId,
    name: N,
    payload?: N extends JobName ? JobPayload<N> : Record<string, unknown>,
    options: { trigger?: JobTrigger; scheduleKey?: string } = {},
  ): Promise<JobRunEntity | null> {
    return this.insertRun(tenantId, name, { ...payload }, options);
  }

  /**
   * Queues a run on the caller's connection, inside the caller's transaction: the run exists exactly when that
   * transaction commits (an outbox's fan-out, docs/webhooks.md). Due at `runAfter` (default now). Call `wakeUp()`
   * after the commit to look for it at once instead of at the next poll.
   */
  async enqueueWithin<N extends JobName>(
    db: Db,
    tenantId: TenantId,
    name: N,
    payload: JobPayload<N>,
    options: { trigger?: JobTrigger; runAfter?: Date } = {},
  ): Promise<string> {
    const definition = this.definitions.get(name);
    if (!definition) throw new JobsException(JobsErrorCode.UnknownJob, name);
    return this.runs.insertWithin(db, tenantId, {
      name,
      trigger: options.trigger ?? 'event',
      payload: { ...payload } as Record<string, unknown>,
      maxAttempts: definition.maxAttempts,
      ...(options.runAfter ? { runAfter: options.runAfter } : {}),
    });
  }

  /** Starts this process's worker loop now if it is idle (runs were queued by `enqueueWithin` and committed). */
  wakeUp(): void {
    this.wake();
  }

  private async insertRun(
    tenantId: TenantId,
    name: string,
    payload: Record<string, unknown>,
    options: { trigger?: JobTrigger; scheduleKey?: string },
  ): Promise<JobRunEntity | null> {
    const definition = this.definitions.get(name);
    if (!definition) throw new JobsException(JobsErrorCode.UnknownJob, name);
    const run = await this.runs.insert(tenantId, {
      name,
      trigger: options.trigger ?? 'manual',
      payload,
      maxAttempts: definition.maxAttempts,
      scheduleKey: options.scheduleKey,
    });
    if (run) this.wake();
    return run;
  }

  async get(tenantId: TenantId, id: string): Promise<JobRunEntity> {
    const run = await this.runs.find(tenantId, id);
    if (!run) throw new JobsException(JobsErrorCode.RunNotFound, id);
    return run;
  }

  async list(tenantId: TenantId, filter: { name?: string; status?: JobRunStatus }, page: { limit?: number; cursor?: string }): Promise<Page<JobRunEntity>> {
    return this.runs.list(tenantId, filter, pageRequest(page));
  }

  /** Runs per status created in the calendar days `from`..`to` of `timeZone`; statuses without runs are absent. */
  countByStatus(tenantId: TenantId, window: { from: string; to: string; timeZone: string }): Promise<Partial<Record<JobRunStatus, number>>> {
    return this.runs.countByStatus(tenantId, window);
  }

  /**
   * Executes runnable runs until none is left and none is executing (tests, the worker's loop): up to
   * JOBS_CONCURRENCY at once, one per tenant. While runs execute it claims again whenever one ends, a run is queued
   * here (`wake`), or a poll interval passes (`whileWaiting` runs then: the loop's schedules). Returns how many
   * attempts ran.
   */
  async runPending(maxRuns = Number.POSITIVE_INFINITY, whileWaiting?: () => Promise<unknown>): Promise<number> {
    let count = 0;
    const executing = new Set<Promise<void>>();
    for (;;) {
      while (count < maxRuns && !this.stopping && executing.size < this.config.jobs.concurrency) {
        const busy = [...this.busyTenants.keys()];
        const claimed = await this.queue.claimNext(this.workerId, [...this.definitions.keys()], this.config.jobs.leaseMs, busy);
        if (!claimed) {
          // A tenant left out as busy may have finished its run while the claim read the queue: its due runs were not
          // looked at, so claim again rather than return with them queued (seen on a cluster, where the claim's read
          // spans shards and a short run ends first).
          if (busy.some((tenantId) => !this.busyTenants.has(tenantId))) continue;
          break;
        }
        count++;
        const execution = this.executeForTenant(claimed).finally(() => executing.delete(execution));
        executing.add(execution);
      }
      if (executing.size === 0) return count;
      const wake = this.nextWake();
      await Promise.race([...executing, wake.woken]).finally(wake.cancel);
      if (whileWaiting && !this.stopping) await whileWaiting();
    }
  }
  /** Creates the runs of every schedule whose tick has passed (idempotent across replicas). */
  async enqueueDueSchedules(now = new Date()): Promise<number> {
    let created = 0;
    for (const name of this.definitions.keys()) {
      const cron = this.scheduleOf(name);
      if (!cron) continue;
      const due = this.nextTicks.get(name) ?? nextTick(cron, now);
      if (!this.nextTicks.has(name)) this.nextTicks.set(name, due);
      if (due > now) continue;
      const slot = due.toISOString();
      for (const tenantId of await this.queue.tenantIds()) {
        const run = await this.insertRun(asTenantId(tenantId), name, {}, { trigger: 'schedule', scheduleKey: `${name}@${slot}@${tenantId}` });
        if (run) created++;
      }
      this.nextTicks.set(name, nextTick(cron, now));
    }
    return created;
  }

  onApplicationBootstrap(): void {
    if (!this.config.jobs.enabled) return;
    this.logger.log({ msg: 'job worker started', workerId: this.workerId, jobs: [...this.definitions.keys()] });
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /**
   * Stops this process's job worker (SIGTERM, README "Faults and outages"; also `app.close()`): no new claim, and the
   * running handler is stopped at its next `ctx.progress` — the update is saved and the run released in one statement,
   * so another worker resumes it from that checkpoint at once. Resolves once the loop is idle. Idempotent.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.loop;
  }

  private wake(): void {
    for (const waiter of [...this.wakeWaiters]) waiter();
    if (this.config.jobs.enabled && !this.loop && !this.stopping) this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.loop) return;
      this.loop = this.tick().finally(() => {
        this.loop = null;
        this.schedule(this.config.jobs.pollIntervalMs);
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    try {
      await this.enqueueDueSchedules();
      await this.runPending(Number.POSITIVE_INFINITY, () => this.enqueueDueSchedules());
    } catch (error) {
      this.logger.warn({ msg: 'job loop error (retrying)', err: (error as Error).message });
    }
  }

  /** Resolves when `wake` is called or after a poll interval, whichever comes first; `cancel` drops the wait. */
  private nextWake(): { woken: Promise<void>; cancel: () => void } {
    let cancel = (): void => undefined;
    const woken = new Promise<void>((resolve) => {
      const timer = setTimeout(() => cancel(), this.config.jobs.pollIntervalMs);
      cancel = () => {
        clearTimeout(timer);
        this.wakeWaiters.delete(cancel);
        resolve();
      };
      this.wakeWaiters.add(cancel);
    });
    return { woken, cancel };
  }

  private async executeForTenant(run: ClaimedRun): Promise<void> {
    this.busyTenants.set(run.tenantId, (this.busyTenants.get(run.tenantId) ?? 0) + 1);
    try {
      await this.execute(run);
    } finally {
      const left = (this.busyTenants.get(run.tenantId) ?? 1) - 1;
      if (left > 0) this.busyTenants.set(run.tenantId, left);
      else this.busyTenants.delete(run.tenantId);
    }
  }

  private async execute(run: ClaimedRun): Promise<void> {
    const definition = this.definitions.get(run.name);
    if (!definition) return;
    const started = performance.now();
    if (run.attempts > run.maxAttempts) {
      // The previous attempts' workers died holding the lease.
      await this.queue.fail(run.tenantId, run.id, this.workerId, `gave up after ${run.maxAttempts} attempts (worker lost)`, null);
      this.runsTotal.inc({ job: run.name, outcome: 'failed' });
      return;
    }
    const ctx: JobContext<never> = {
      runId: run.id,
      tenantId: asTenantId(run.tenantId),
      payload: run.payload as never,
      attempt: run.attempts,
      checkpoint: run.checkpoint ?? null,
      processed: run.processed,
      total: run.total,
      step: (work) => this.gate.run(run.tenantId, work),
      progress: async (update) => {
        if (update.total !== undefined) assertJobTotal(update.total);
        if (this.stopping) await this.gate.run(run.tenantId, () => this.release(run, update)); // throws: the attempt ends at this checkpoint
        const kept = await this.gate.run(run.tenantId, () => this.queue.progress(run.tenantId, run.id, this.workerId, this.config.jobs.leaseMs, update));
        if (!kept) throw new JobLeaseLostError(run.id);
      },
      setTotal: (total) => ctx.progress({ total }),
    };
    try {
      // Claimed as the stop came: give it straight back rather than start work the grace may cut.
      if (this.stopping) await this.release(run, {});
      await definition.handler(ctx);
      await this.queue.succeed(run.tenantId, run.id, this.workerId);
      this.runsTotal.inc({ job: run.name, outcome: 'succeeded' });
    } catch (error) {
      if (error instanceof JobLeaseLostError) {
        this.runsTotal.inc({ job: run.name, outcome: 'lease_lost' });
        return;
      }
      if (error instanceof JobStoppedError) return; // released by release(); not a failure, no retry backoff
      const message = error instanceof Error ? error.message : String(error);
      const retry = run.attempts < run.maxAttempts ? retryDelayMs(run.attempts) : null;
      await this.queue.fail(run.tenantId, run.id, this.workerId, message, retry);
      this.runsTotal.inc({ job: run.name, outcome: retry === null ? 'failed' : 'retried' });
      this.logger.warn({ msg: 'job attempt failed', job: run.name, runId: run.id, attempt: run.attempts, willRetry: retry !== null, err: message });
    } finally {
      this.runDuration.observe({ job: run.name }, (performance.now() - started) / 1000);
    }
  }

  /** Saves the update and hands the run back to the queue (see stop()); throws JobStoppedError, or JobLeaseLostError when the lease was already gone. */
  private async release(run: ClaimedRun, update: JobProgress): Promise<never> {
    if (!(await this.queue.release(run.tenantId, run.id, this.workerId, update))) throw new JobLeaseLostError(run.id);
    this.runsTotal.inc({ job: run.name, outcome: 'released' });
    this.logger.log({ msg: 'job run released at a checkpoint (shutting down)', job: run.name, runId: run.id, attempt: run.attempts });
    throw new JobStoppedError(run.id);
  }
}
