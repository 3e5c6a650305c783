import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
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

/** What a progress update does to the lease: renew it ($10 = lease ms) or give the run back to the queue. */
const RENEW_LEASE = 'locked_until = now() + make_interval(secs => $10::double precision / 1000)';
const RELEASE = "status = 'queued', locked_by = NULL, locked_until = NULL, attempts = greatest(attempts - 1, 0)";

/**
 * The worker's view of the queue. Unlike tenant repositories this is system scope on purpose:
 * a worker serves every tenant's runs, each handler then runs with the run's tenant id.
 */
@Injectable()
export class JobQueueRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Claims the oldest runnable run (queued and due, or running with an expired lease) for this worker. */
  async claimNext(workerId: string, names: string[], leaseMs: number): Promise<ClaimedRun | null> {
    if (!names.length) return null;
    const rows = (await this.dataSource.query(
      `UPDATE job_run
          SET status = 'running', locked_by = $1, locked_until = now() + make_interval(secs => $2::double precision / 1000),
              attempts = attempts + 1, started_at = coalesce(started_at, now())
        WHERE (tenant_id, id) = (
          SELECT tenant_id, id FROM job_run
           WHERE status IN ('queued', 'running') AND name = ANY($3::varchar[])
             AND ((status = 'queued' AND run_after <= now()) OR (status = 'running' AND locked_until < now()))
           ORDER BY run_after, created_at
           FOR UPDATE SKIP LOCKED
           LIMIT 1)
      RETURNING id, tenant_id, name, payload, checkpoint, processed, total, attempts, max_attempts`,
      [workerId, leaseMs, names],
    )) as unknown[];
    const list = flatten(rows) as {
      id: string;
      tenant_id: string;
      name: string;
      payload: Record<string, unknown>;
      checkpoint: unknown;
      processed: number;
      total: number | null;
      attempts: number;
      max_attempts: number;
    }[];
    const row = list[0];
    if (!row) return null;
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
   * Adds to the counters, sets the total (when given), saves the checkpoint and renews the lease; false when the lease
   * was lost. A total is never stored below processed: the given one is raised to the new processed count, and a
   * stored one is raised whenever processed overtakes it (items that appeared after the handler counted). This and the
   * statements below address the claimed run by its key (tenant_id, id): one shard once job_run is distributed
   * (docs/SCALING.md "Jobs on a distributed cluster").
   */
  async progress(tenantId: string, runId: string, workerId: string, leaseMs: number, update: JobProgress): Promise<boolean> {
    return this.saveProgress(tenantId, runId, workerId, update, RENEW_LEASE, [leaseMs]);
  }

  /**
   * Saves the update like {@link progress} and, in the same statement, hands the run back to the queue (shutdown,
   * README "Faults and outages"): queued, no lease, due at its old `run_after` (so any worker claims it at once, not
   * after the lease expires), and the attempt this worker claimed is not counted — being stopped is not a failure and
   * must not use up `max_attempts`. False when the lease was already lost.
   */
  async release(tenantId: string, runId: string, workerId: string, update: JobProgress): Promise<boolean> {
    return this.saveProgress(tenantId, runId, workerId, update, RELEASE, []);
  }

  private async saveProgress(
    tenantId: string,
    runId: string,
    workerId: string,
    update: JobProgress,
    andSet: typeof RENEW_LEASE | typeof RELEASE,
    extra: unknown[],
  ): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `UPDATE job_run
          SET processed = processed + $3, failed = failed + $4,
              total = CASE WHEN $8::int IS NOT NULL THEN greatest($8::int, processed + $3)
                           WHEN total IS NOT NULL THEN greatest(total, processed + $3) END,
              checkpoint = CASE WHEN $5::boolean THEN $6::jsonb ELSE checkpoint END,
              details = CASE WHEN $7::jsonb IS NULL THEN details ELSE coalesce(details, '{}'::jsonb) || $7::jsonb END,
              ${andSet}
        WHERE tenant_id = $9 AND id = $1 AND locked_by = $2 AND status = 'running'
      RETURNING id`,
      [
        runId,
        workerId,
        update.processed ?? 0,
        update.failed ?? 0,
        update.checkpoint !== undefined,
        update.checkpoint === undefined ? null : JSON.stringify(update.checkpoint),
        update.details ? JSON.stringify(update.details) : null,
        update.total ?? null,
        tenantId,
        ...extra,
      ],
    )) as unknown[];
    return flatten(rows).length > 0;
  }

  async succeed(tenantId: string, runId: string, workerId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE job_run SET status = 'succeeded', finished_at = now(), locked_by = NULL, locked_until = NULL, error = NULL
        WHERE tenant_id = $3 AND id = $1 AND locked_by = $2`,
      [runId, workerId, tenantId],
    );
  }

  /** Requeues with a delay while attempts remain, else marks the run failed with its error. */
  async fail(tenantId: string, runId: string, workerId: string, error: string, retryDelayMs: number | null): Promise<void> {
    if (retryDelayMs === null) {
      await this.dataSource.query(
        `UPDATE job_run SET status = 'failed', finished_at = now(), locked_by = NULL, locked_until = NULL, error = $3
          WHERE tenant_id = $4 AND id = $1 AND locked_by = $2`,
        [runId, workerId, error, tenantId],
      );
      return;
    }
    await this.dataSource.query(
      `UPDATE job_run SET status = 'queued', locked_by = NULL, locked_until = NULL, error = $3,
              run_after = now() + make_interval(secs => $4::double precision / 1000)
        WHERE tenant_id = $5 AND id = $1 AND locked_by = $2`,
      [runId, workerId, error, retryDelayMs, tenantId],
    );
  }

  /** Tenants a scheduled tick creates runs for. */
  async tenantIds(): Promise<string[]> {
    const rows = (await this.dataSource.query('SELECT id FROM tenant ORDER BY created_at')) as { id: string }[];
    return rows.map((r) => r.id);
  }
}

function flatten(result: unknown[]): unknown[] {
  // UPDATE ... RETURNING through TypeORM's postgres driver yields [rows, affectedCount].
  return Array.isArray(result[0]) ? (result[0] as unknown[]) : result;
}
