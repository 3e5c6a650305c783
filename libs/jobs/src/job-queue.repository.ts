import { Injectable } from '@nestjs/common';
import { Database, sql, type JobRun, type RawBuilder, type Selectable } from '@arbiter/database';
import type { JobProgress } from './job.types.js';

export interface ClaimedRun {
  id: string;
  tenantId: string;
  name: string;
  payload: Record<string, unknown>;
  checkpoint: unknown;
  /** Counters saved by earlier attempts (processed together with the checkpoint). */
  processed: number;
  total: number | null;
  attempts: number;
  maxAttempts: number;
}

/** What a progress update does to the lease: renew it for `leaseMs` or give the run back to the queue. */
const renewLease = (leaseMs: number) => sql`locked_until = now() + make_interval(secs => ${leaseMs}::double precision / 1000)`;
const RELEASE = sql`status = 'queued', locked_by = NULL, locked_until = NULL, attempts = greatest(attempts - 1, 0)`;
/** A run a worker may claim: queued and due, or running with an expired lease. */
const CLAIMABLE = sql`((status = 'queued' AND run_after <= now()) OR (status = 'running' AND locked_until < now()))`;
/**
 * The claim's update. `least(started_at, now())` keeps the first attempt's start (least ignores a NULL): Citus refuses
 * `coalesce(started_at, now())`, a non-IMMUTABLE function in COALESCE (docs/SCALING.md "Running on Citus").
 */
const claimSet = (workerId: string, leaseMs: number) =>
  sql`status = 'running', locked_by = ${workerId}, locked_until = now() + make_interval(secs => ${leaseMs}::double precision / 1000),
      attempts = attempts + 1, started_at = least(started_at, now())`;
const CLAIMED_COLUMNS = sql`id, tenant_id, name, payload, checkpoint, processed, total, attempts, max_attempts`;
/** Candidates read per claim: enough that workers racing for the oldest runs still find one each. */
const CLAIM_CANDIDATES = 8;
/** Rounds of candidates before a claim gives up until the next poll (each lost round, others claimed 8 runs). */
const CLAIM_ROUNDS = 5;

/** The claim's `RETURNING` (CLAIMED_COLUMNS). */
type ClaimedRow = Pick<Selectable<JobRun>, 'id' | 'tenant_id' | 'name' | 'checkpoint' | 'processed' | 'total' | 'attempts' | 'max_attempts'> & {
  payload: Record<string, unknown>;
};

function toClaimed(row: ClaimedRow): ClaimedRun {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    payload: row.payload,
    checkpoint: row.checkpoint,
    processed: row.processed,
    total: row.total,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
  };
}

/**
 * The worker's view of the queue. Unlike tenant repositories this is system scope on purpose:
 * a worker serves every tenant's runs, each handler then runs with the run's tenant id. On the typed data
 * layer (docs/data-layer.md); the claim keeps its SQL (candidate order, compare-and-set) as written.
 */
@Injectable()
export class JobQueueRepository {
  constructor(private readonly database: Database) {}

  /**
   * Claims the oldest runnable run (queued and due, or running with an expired lease) for this worker, of a tenant
   * not in `busyTenants` (those with a run executing in this worker: one at a time each). Two steps on every database,
   * so that no statement locks rows across tenants (Citus runs `SELECT … FOR UPDATE` only within one shard;
   * docs/SCALING.md "Jobs on a distributed cluster"): read the oldest candidates without a lock, then claim one by its
   * key with a compare-and-set. A worker that loses a candidate to another one gets no row (PostgreSQL re-reads the
   * committed row after waiting for its lock and re-checks the `WHERE`) and tries the next, so a run is claimed once.
   */
  async claimNext(workerId: string, names: string[], leaseMs: number, busyTenants: readonly string[] = []): Promise<ClaimedRun | null> {
    if (!names.length) return null;
    // Every candidate of a round lost means other workers claimed them all: read the next oldest.
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const { rows: candidates } = await sql<{ tenant_id: string; id: string }>`
        SELECT tenant_id, id FROM job_run
         WHERE status IN ('queued', 'running') AND name = ANY(${names}::varchar[]) AND ${CLAIMABLE}
           AND NOT (tenant_id = ANY(${busyTenants}::uuid[]))
         ORDER BY run_after, created_at
         LIMIT ${CLAIM_CANDIDATES}`.execute(this.database.db);
      for (const candidate of candidates) {
        const { rows } = await sql<ClaimedRow>`UPDATE job_run
              SET ${claimSet(workerId, leaseMs)}
            WHERE tenant_id = ${candidate.tenant_id} AND id = ${candidate.id} AND status IN ('queued', 'running') AND ${CLAIMABLE}
          RETURNING ${CLAIMED_COLUMNS}`.execute(this.database.db);
        if (rows[0]) return toClaimed(rows[0]);
      }
      if (candidates.length < CLAIM_CANDIDATES) return null;
    }
    return null;
  }

  /**
   * Adds to the counters, sets the total (when given), saves the checkpoint and renews the lease; false when the lease
   * was lost. A total is never stored below processed: the given one is raised to the new processed count, and a
   * stored one is raised whenever processed overtakes it (items that appeared after the handler counted). This and the
   * statements below address the claimed run by its key (tenant_id, id): one shard once job_run is distributed
   * (docs/SCALING.md "Jobs on a distributed cluster").
   */
  async progress(tenantId: string, runId: string, workerId: string, leaseMs: number, update: JobProgress): Promise<boolean> {
    return this.saveProgress(tenantId, runId, workerId, update, renewLease(leaseMs));
  }

  /**
   * Saves the update like {@link progress} and, in the same statement, hands the run back to the queue (shutdown,
   * README "Faults and outages"): queued, no lease, due at its old `run_after` (so any worker claims it at once, not
   * after the lease expires), and the attempt this worker claimed is not counted — being stopped is not a failure and
   * must not use up `max_attempts`. False when the lease was already lost.
   */
  async release(tenantId: string, runId: string, workerId: string, update: JobProgress): Promise<boolean> {
    return this.saveProgress(tenantId, runId, workerId, update, RELEASE);
  }

  private async saveProgress(tenantId: string, runId: string, workerId: string, update: JobProgress, andSet: RawBuilder<unknown>): Promise<boolean> {
    const processed = update.processed ?? 0;
    const total = update.total ?? null;
    const checkpoint = update.checkpoint === undefined ? null : JSON.stringify(update.checkpoint);
    const details = update.details ? JSON.stringify(update.details) : null;
    const { rows } = await sql<{ id: string }>`UPDATE job_run
          SET processed = processed + ${processed}, failed = failed + ${update.failed ?? 0},
              total = CASE WHEN ${total}::int IS NOT NULL THEN greatest(${total}::int, processed + ${processed})
                           WHEN total IS NOT NULL THEN greatest(total, processed + ${processed}) END,
              checkpoint = CASE WHEN ${update.checkpoint !== undefined}::boolean THEN ${checkpoint}::jsonb ELSE checkpoint END,
              details = CASE WHEN ${details}::jsonb IS NULL THEN details ELSE coalesce(details, '{}'::jsonb) || ${details}::jsonb END,
              ${andSet}
        WHERE tenant_id = ${tenantId} AND id = ${runId} AND locked_by = ${workerId} AND status = 'running'
      RETURNING id`.execute(this.database.db);
    return rows.length > 0;
  }

  async succeed(tenantId: string, runId: string, workerId: string): Promise<void> {
    await this.database.db
      .updateTable('job_run')
      .set({ status: 'succeeded', finished_at: sql<Date>`now()`, locked_by: null, locked_until: null, error: null })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', runId)
      .where('locked_by', '=', workerId)
      .execute();
  }

  /** Requeues with a delay while attempts remain, else marks the run failed with its error. */
  async fail(tenantId: string, runId: string, workerId: string, error: string, retryDelayMs: number | null): Promise<void> {
    await this.database.db
      .updateTable('job_run')
      .set(
        retryDelayMs === null
          ? { status: 'failed', finished_at: sql<Date>`now()`, locked_by: null, locked_until: null, error }
          : {
              status: 'queued',
              locked_by: null,
              locked_until: null,
              error,
              run_after: sql<Date>`now() + make_interval(secs => ${retryDelayMs}::double precision / 1000)`,
            },
      )
      .where('tenant_id', '=', tenantId)
      .where('id', '=', runId)
      .where('locked_by', '=', workerId)
      .execute();
  }

  /** Tenants a scheduled tick creates runs for. */
  async tenantIds(): Promise<string[]> {
    const rows = await this.database.db.selectFrom('tenant').select('id').orderBy('created_at').execute();
    return rows.map((r) => r.id);
  }
}
