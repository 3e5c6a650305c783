import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { Db } from '@arbiter/database';
import { exactTimestampSql, toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { JobRunEntity, type JobRunStatus, type JobTrigger } from './job-run.entity.js';

export interface NewJobRun {
  name: string;
  trigger: JobTrigger;
  payload: Record<string, unknown>;
  maxAttempts: number;
  scheduleKey?: string;
}

/** Tenant-facing job-run reads and writes (every method scoped by tenant). */
@Injectable()
export class JobRunsRepository {
  constructor(@InjectRepository(JobRunEntity) private readonly runs: Repository<JobRunEntity>) {}

  /** Inserts a run; with a scheduleKey that already exists (another replica won the tick) returns null. */
  async insert(tenantId: TenantId, run: NewJobRun): Promise<JobRunEntity | null> {
    const result = await this.runs
      .createQueryBuilder()
      .insert()
      .into(JobRunEntity)
      // TypeORM's deep-partial type rejects free-form jsonb; the column takes any object.
      .values({
        tenantId,
        name: run.name,
        trigger: run.trigger,
        payload: run.payload as never,
        maxAttempts: run.maxAttempts,
        scheduleKey: run.scheduleKey ?? null,
      })
      .orIgnore()
      .returning('id')
      .execute();
    const id = (result.raw as { id: string }[])[0]?.id;
    return id ? this.find(tenantId, id) : null;
  }

  /** Inserts a run on the caller's connection (docs/data-layer.md: a transaction another lib opened), due at `runAfter`. */
  async insertWithin(db: Db, tenantId: TenantId, run: NewJobRun & { runAfter?: Date }): Promise<string> {
    const row = await db
      .insertInto('job_run')
      .values({
        tenant_id: tenantId,
        name: run.name,
        trigger: run.trigger,
        payload: JSON.stringify(run.payload),
        max_attempts: run.maxAttempts,
        ...(run.runAfter ? { run_after: run.runAfter } : {}),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  find(tenantId: TenantId, id: string): Promise<JobRunEntity | null> {
    return this.runs.findOneBy({ tenantId, id });
  }

  /** Newest first, keyset over (created_at, id) at the column's microsecond precision. */
  async list(tenantId: TenantId, filter: { name?: string; status?: JobRunStatus }, page: PageRequest): Promise<Page<JobRunEntity>> {
    const qb = this.runs.createQueryBuilder('r').where('r.tenant_id = :tenantId', { tenantId });
    if (filter.name) qb.andWhere('r.name = :name', { name: filter.name });
    if (filter.status) qb.andWhere('r.status = :status', { status: filter.status });
    if (page.after) qb.andWhere('(r.created_at, r.id) < (:c::timestamptz, :id::uuid)', { c: page.after.createdAt, id: page.after.id });
    const { entities, raw } = await qb
      .addSelect(exactTimestampSql('r.created_at'), 'cursorTs')
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .limit(page.limit + 1)
      .getRawAndEntities<{ cursorTs: string }>();
    const rows = entities.map((run, i) => ({ run, cursorTs: raw[i]?.cursorTs ?? '', cursorId: run.id }));
    return toPage(rows, page.limit, (r) => r.run);
  }

  /**
   * Runs per status created in the calendar days `from`..`to` (inclusive) of `timeZone` (the operator console's
   * overview); statuses without runs are absent.
   */
  async countByStatus(tenantId: TenantId, window: { from: string; to: string; timeZone: string }): Promise<Partial<Record<JobRunStatus, number>>> {
    const rows: { status: JobRunStatus; n: number }[] = await this.runs.query(
      `SELECT r.status, count(*)::int AS n
       FROM job_run r
       WHERE r.tenant_id = $1
         AND r.created_at >= ($2::date::timestamp AT TIME ZONE $4)
         AND r.created_at < (($3::date + 1)::timestamp AT TIME ZONE $4)
       GROUP BY r.status`,
      [tenantId, window.from, window.to, window.timeZone],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** Deletes up to `limit` of the tenant's finished runs created before the retention window (never `keepRunId`); returns how many. */
  async deleteFinished(tenantId: TenantId, retentionDays: number, keepRunId: string, limit: number): Promise<number> {
    const rows: unknown[] = await this.runs.query(
      `WITH victims AS (
         SELECT r.id FROM job_run r
         WHERE r.tenant_id = $1 AND r.created_at < now() - make_interval(days => $2::int)
           AND r.status IN ('succeeded', 'failed') AND r.id <> $3
         ORDER BY r.created_at, r.id
         LIMIT $4
       ),
       gone AS (DELETE FROM job_run r USING victims v WHERE r.id = v.id AND r.tenant_id = $1 RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [tenantId, retentionDays, keepRunId, limit],
    );
    return (rows[0] as { n: number } | undefined)?.n ?? 0;
  }
}
