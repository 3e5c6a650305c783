import { Injectable } from '@nestjs/common';
import { Database, sql, typedKeyset, type Db, type Json } from '@arbiter/database';
import { toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import type { JobRunEntity, JobRunStatus, JobTrigger } from './entities/job-run.entity.js';

export interface NewJobRun {
  name: string;
  trigger: JobTrigger;
  payload: Record<string, unknown>;
  maxAttempts: number;
  scheduleKey?: string;
}

const RUN_KEYSET = typedKeyset('r.created_at', 'r.id');

/** A run's columns under its entity's property names (the entity stays for the boot-time schema check). */
const RUN_COLUMNS = [
  'id',
  'tenant_id as tenantId',
  'name',
  'trigger',
  'status',
  'payload',
  'checkpoint',
  'processed',
  'failed',
  'total',
  'attempts',
  'max_attempts as maxAttempts',
  'run_after as runAfter',
  'locked_by as lockedBy',
  'locked_until as lockedUntil',
  'schedule_key as scheduleKey',
  'error',
  'details',
  'created_at as createdAt',
  'started_at as startedAt',
  'finished_at as finishedAt',
] as const;

type RunRow = Omit<JobRunEntity, 'trigger' | 'status' | 'payload' | 'details'> & { trigger: string; status: string; payload: Json; details: Json | null };

/** Narrows the `varchar` + `CHECK` and jsonb columns to the entity's types. */
function toRun(r: RunRow): JobRunEntity {
  return {
    ...r,
    trigger: r.trigger as JobTrigger,
    status: r.status as JobRunStatus,
    payload: r.payload as Record<string, unknown>,
    details: r.details as Record<string, unknown> | null,
  };
}

/** Tenant-facing job-run reads and writes (every method scoped by tenant), on the typed data layer (docs/data-layer.md). */
@Injectable()
export class JobRunsRepository {
  constructor(private readonly database: Database) {}

  /** Inserts a run; with a scheduleKey that already exists (another replica won the tick) returns null. */
  async insert(tenantId: TenantId, run: NewJobRun): Promise<JobRunEntity | null> {
    const inserted = await this.database.db
      .insertInto('job_run')
      .values({
        tenant_id: tenantId,
        name: run.name,
        trigger: run.trigger,
        payload: JSON.stringify(run.payload),
        max_attempts: run.maxAttempts,
        schedule_key: run.scheduleKey ?? null,
      })
      .onConflict((c) => c.doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted ? this.find(tenantId, inserted.id) : null;
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

  async find(tenantId: TenantId, id: string): Promise<JobRunEntity | null> {
    const row = await this.database.db.selectFrom('job_run').select(RUN_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row ? toRun(row) : null;
  }

  /** Newest first, keyset over (created_at, id) at the column's microsecond precision. */
  async list(tenantId: TenantId, filter: { name?: string; status?: JobRunStatus }, page: PageRequest): Promise<Page<JobRunEntity>> {
    let query = this.database.db.selectFrom('job_run as r').select(RUN_COLUMNS).select(RUN_KEYSET.cursor).where('r.tenant_id', '=', tenantId);
    if (filter.name) query = query.where('r.name', '=', filter.name);
    if (filter.status) query = query.where('r.status', '=', filter.status);
    const rows = await query
      .where(RUN_KEYSET.after(page.after))
      .orderBy(RUN_KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, ({ cursorTs: _ts, cursorId: _id, ...run }) => toRun(run));
  }

  /**
   * Runs per status created in the calendar days `from`..`to` (inclusive) of `timeZone` (the operator console's
   * overview); statuses without runs are absent.
   */
  async countByStatus(tenantId: TenantId, window: { from: string; to: string; timeZone: string }): Promise<Partial<Record<JobRunStatus, number>>> {
    const { rows } = await sql<{ status: JobRunStatus; n: number }>`
      SELECT r.status, count(*)::int AS n
        FROM job_run r
       WHERE r.tenant_id = ${tenantId}
         AND r.created_at >= (${window.from}::date::timestamp AT TIME ZONE ${window.timeZone})
         AND r.created_at < ((${window.to}::date + 1)::timestamp AT TIME ZONE ${window.timeZone})
       GROUP BY r.status`.execute(this.database.db);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** Deletes up to `limit` of the tenant's finished runs created before the retention window (never `keepRunId`); returns how many. */
  async deleteFinished(tenantId: TenantId, retentionDays: number, keepRunId: string, limit: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      WITH victims AS (
         SELECT r.id FROM job_run r
         WHERE r.tenant_id = ${tenantId} AND r.created_at < now() - make_interval(days => ${retentionDays}::int)
           AND r.status IN ('succeeded', 'failed') AND r.id <> ${keepRunId}
         ORDER BY r.created_at, r.id
         LIMIT ${limit}
       ),
       gone AS (DELETE FROM job_run r USING victims v WHERE r.id = v.id AND r.tenant_id = ${tenantId} RETURNING 1)
       SELECT count(*)::int AS n FROM gone`.execute(this.database.db);
    return rows[0]?.n ?? 0;
  }
}
