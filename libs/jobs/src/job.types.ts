import type { TenantId } from '@arbiter/common';

export interface JobProgress {
  /** Added to the run's processed counter. */
  processed?: number;
  /** Added to the run's failed counter. */
  failed?: number;
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
  /** Saves progress and renews the lease; throws JobLeaseLostError when another worker took the run over. */
  progress(update: JobProgress): Promise<void>;
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

/** Exponential backoff between attempts: 2 s, 4 s, 8 s … capped at 5 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(2 ** attempt * 1000, 300_000);
}
