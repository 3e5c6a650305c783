import type { TenantId } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';

export interface JobProgress {
  /** Added to the run's processed counter. */
  processed?: number;
  /** Added to the run's failed counter. */
  failed?: number;
  /**
   * Sets the run's total: the items it will process (absolute, not added). Stored as max(total, processed) — the
   * framework clamps, so a run never shows more processed than its total — and kept when a later attempt resumes.
   */
  total?: number;
  /** Where to resume after a crash (saved with the counters). */
  checkpoint?: unknown;
  /** Free-form details shown in GET /admin/jobs/:id (e.g. the items that failed). */
  details?: Record<string, unknown>;
}

export interface JobContext<P = Record<string, unknown>> {
  runId: string;
  tenantId: TenantId;
  payload: P;
  attempt: number;
  /** The checkpoint saved by an earlier attempt, or null on a fresh run. */
  checkpoint: unknown;
  /**
   * The run's processed counter when this attempt started (0 on a fresh run). It was saved with `checkpoint`, so a
   * resuming handler that recounts its total reports `processed + <items left after the checkpoint>`.
   */
  processed: number;
  /** The total reported by an earlier attempt (kept across resumes), or null. */
  total: number | null;
  /**
   * Saves progress and renews the lease; throws JobLeaseLostError when another worker took the run over. While the
   * process shuts down (SIGTERM, README "Faults and outages") it saves this update, releases the run (queued again,
   * no lease, the attempt not counted) and throws {@link JobStoppedError}: every call is a checkpoint where the
   * handler may be stopped, so it must only be called once the work it reports is written. Let the error propagate.
   */
  progress(update: JobProgress): Promise<void>;
  /**
   * Runs one step of the job's database work as a turn of its tenant at the BackgroundGate (docs/hot-paths.md
   * "Imports: foreground first"): requests go first, tenants take turns. Keep a step to one short transaction or a
   * few statements; CPU work between steps belongs outside them. `progress` is a turn of its own (or part of the
   * step it is called in).
   */
  step: BackgroundStep;
  /** Reports how many items the run will process, once known: `progress({ total })` (clamped to at least processed). */
  setTotal(total: number): Promise<void>;
}

/**
 * How a job drives a service's resumable pass (a re-embed, a re-index): the job's database steps (`ctx.step`) and
 * its checkpoints (the last id done).
 */
export interface JobSteps {
  step: BackgroundStep;
  progress?: (processed: number, checkpoint: string) => Promise<void>;
}

/** The largest total an `integer` column holds. */
export const MAX_JOB_TOTAL = 2_147_483_647;

/** A reported total must be a whole number in 0..MAX_JOB_TOTAL (a handler bug otherwise: the attempt fails). */
export function assertJobTotal(total: number): number {
  if (!Number.isInteger(total) || total < 0 || total > MAX_JOB_TOTAL) throw new RangeError(`job total must be an integer in 0..${MAX_JOB_TOTAL}, got ${total}`);
  return total;
}

/** Items left after a checkpoint plus what earlier attempts processed: the total a resuming handler reports. */
export function resumedTotal(processedBefore: number, remaining: number): number {
  return Math.min(processedBefore + remaining, MAX_JOB_TOTAL);
}

/** Names of ad-hoc jobs defined by the jobs framework's own tests (`JobsService.defineAdHoc`). */
export type AdHocJobName = `test.${string}`;

/** An ad-hoc job (tests); production jobs are declared in JOB_CATALOG with a `@JobHandler` provider. */
export interface JobDefinition<P = Record<string, unknown>> {
  name: AdHocJobName;
  handler: (ctx: JobContext<P>) => Promise<void>;
  /** Attempts before the run is marked failed (default 3). */
  maxAttempts?: number;
  /** Default cron schedule (overridable by JOBS_SCHEDULES); one run per tenant per tick. */
  cron?: string;
}

export class JobLeaseLostError extends Error {
  constructor(runId: string) {
    super(`Job run ${runId} lost its lease to another worker`);
    this.name = 'JobLeaseLostError';
  }
}

/**
 * Thrown by `JobContext.progress` while the process shuts down, after the update was saved and the run released:
 * the attempt ends there and another worker (or this one after its restart) resumes from that checkpoint at once.
 * Not a failure: the run is not retried with backoff and the attempt does not count towards `maxAttempts`.
 */
export class JobStoppedError extends Error {
  constructor(runId: string) {
    super(`Job run ${runId} was stopped at a checkpoint and released (the process is shutting down)`);
    this.name = 'JobStoppedError';
  }
}

/**
 * Whether an error only says the run left this worker (stopped at a checkpoint, or taken over): a handler
 * that records its own failure must rethrow these untouched and record nothing (docs/FOUNDATION.md "Jobs").
 */
export function isRunHandedOver(error: unknown): error is JobStoppedError | JobLeaseLostError {
  return error instanceof JobStoppedError || error instanceof JobLeaseLostError;
}

/** Exponential backoff between attempts: 2 s, 4 s, 8 s … capped at 5 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(2 ** attempt * 1000, 300_000);
}
