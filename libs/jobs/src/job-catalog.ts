/**
 * The one registry of background jobs: every job's name, payload type, retry policy and default
 * schedule. A job's handler is a provider in its owner's lib marked `@JobHandler('<name>')`
 * (see `job-handler.ts`); at boot `JobsService` checks that every name here has exactly one handler.
 *
 * Adding a job: one entry here, one `<job>.job.ts` handler class in the owner lib, listed in that
 * lib module's providers. Schedules are overridable per name with JOBS_SCHEDULES (`"off"` disables).
 */

/** Payload of jobs that walk a tenant's documents or rules in batches (the checkpoint is the last id done). */
export interface BatchSizePayload {
  batchSize?: number;
}

/** `coverage.backfill`: the window is resolved to timestamps when enqueued so a retry uses the same one. */
export interface CoverageBackfillPayload {
  evaluatorVersion?: string;
  from?: string | null;
  to?: string | null;
  fromTs?: string | null;
  toTs?: string | null;
  timeZone?: string;
}

/** A job without payload (scheduled sweeps). */
export type NoPayload = Record<string, never>;

export interface JobSpec<P extends object> {
  /** The lib whose handler runs the job. */
  readonly owner: string;
  /** Attempts before the run is marked failed (retried with exponential backoff in between). */
  readonly maxAttempts: number;
  /** Default cron schedule (UTC): one run per tenant per tick, exactly once across replicas. */
  readonly cron?: string;
  /** Type-only: the payload the job is enqueued with. */
  readonly payload?: P;
}

function job<P extends object = NoPayload>(spec: Omit<JobSpec<P>, 'payload'>): JobSpec<P> {
  return spec;
}

export const JOB_CATALOG = {
  /** Decides succeeded sessions that have no coverage decision for a version (manual window, or a 48 h sweep). */
  'coverage.backfill': job<CoverageBackfillPayload>({ owner: 'coverage', maxAttempts: 5, cron: '*/15 * * * *' }),
  /** The LLM self-evaluation of one finished session, off the request path. */
  'evaluation.self-evaluate': job<{ sessionId: string }>({ owner: 'evaluation', maxAttempts: 3 }),
  /** Re-runs the LLM track for rule fallbacks whose LLM call failed; scheduled only when an LLM is configured. */
  'evaluation.retry-fallbacks': job({ owner: 'evaluation', maxAttempts: 2, cron: '*/30 * * * *' }),
  /** Re-embeds intent examples into the configured embedding provider's space. */
  'intent.reembed': job<BatchSizePayload>({ owner: 'intent', maxAttempts: 5 }),
  /** Deletes finished job runs older than JOBS_RUN_RETENTION_DAYS (daily, 03:17 UTC). */
  'jobs.cleanup': job({ owner: 'jobs', maxAttempts: 3, cron: '17 3 * * *' }),
  /** Deletes logged routing decisions older than the tenant's retention (default 30 days; daily, 03:37 UTC). */
  'learning.decision-log-cleanup': job({ owner: 'learning', maxAttempts: 3, cron: '37 3 * * *' }),
  /** Fits the routing thresholds on a labelled set (POST /admin/intent-config/fit; docs/learning.md). */
  'learning.intent-fit': job<{ fitId: string }>({ owner: 'learning', maxAttempts: 2 }),
  /** Re-routes logged decisions under a candidate config / draft rules (POST /admin/intent/replay; resumable). */
  'learning.intent-replay': job<{ replayId: string }>({ owner: 'learning', maxAttempts: 5 }),
  /** Deletes expired action-memory rows (hourly at :17). */
  'retrieval.memory-expiry': job({ owner: 'retrieval', maxAttempts: 3, cron: '17 * * * *' }),
  /** Re-embeds knowledge documents into the configured provider's vector space. */
  'retrieval.reembed': job<BatchSizePayload>({ owner: 'retrieval', maxAttempts: 5 }),
  /** Writes a stored knowledge import in batches (resumable: items without an outcome are pending). */
  'retrieval.import': job<{ importId: string }>({ owner: 'retrieval', maxAttempts: 5 }),
  /** Rebuilds lexical postings of documents indexed by another analyzer version. */
  'retrieval.lexical-reindex': job<BatchSizePayload>({ owner: 'retrieval', maxAttempts: 5 }),
  /** One attempt of one webhook delivery (docs/webhooks.md); a failed attempt queues the next run itself (its own 24 h backoff), so retries here only cover a lost worker. */
  'webhooks.deliver': job<{ deliveryId: string }>({ owner: 'webhooks', maxAttempts: 3 }),
  /** Deletes webhook events and their deliveries older than WEBHOOK_RETENTION_DAYS, none pending (daily, 03:47 UTC). */
  'webhooks.cleanup': job({ owner: 'webhooks', maxAttempts: 3, cron: '47 3 * * *' }),
  /** Crash recovery: closes abandoned RUNNING sessions, runs finished-session hooks a crash skipped (:02, :07, …). */
  'sessions.repair': job({ owner: 'sessions', maxAttempts: 3, cron: '2-59/5 * * * *' }),
} as const satisfies Record<string, JobSpec<object>>;

export type JobName = keyof typeof JOB_CATALOG;
export type JobPayload<N extends JobName> = (typeof JOB_CATALOG)[N] extends JobSpec<infer P> ? P : never;

export const JOB_NAMES = Object.keys(JOB_CATALOG) as JobName[];

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(JOB_CATALOG, name);
}
