import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { KeysetCursor, TenantId } from '@arbiter/common';
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
      .values({ tenantId, name: run.name, trigger: run.trigger, payload: run.payload as never, maxAttempts: run.maxAttempts, scheduleKey: run.scheduleKey ?? null })
      .orIgnore()
      .returning('id')
      .execute();
    const id = (result.raw as { id: string }[])[0]?.id;
    return id ? this.find(tenantId, id) : null;
  }

  find(tenantId: TenantId, id: string): Promise<JobRunEntity | null> {
    return this.runs.findOneBy({ tenantId, id });
  }

  async list(tenantId: TenantId, filter: { name?: string; status?: JobRunStatus }, limit: number, after?: KeysetCursor): Promise<JobRunEntity[]> {
    const qb = this.runs.createQueryBuilder('r').where('r.tenant_id = :tenantId', { tenantId });
    if (filter.name) qb.andWhere('r.name = :name', { name: filter.name });
    if (filter.status) qb.andWhere('r.status = :status', { status: filter.status });
    // Cursors carry milliseconds (JS dates); order and compare at that precision so rows that share a
    // millisecond are neither skipped nor repeated between pages.
    const createdMs = "date_trunc('milliseconds', r.created_at)";
    if (after) qb.andWhere(`(${createdMs}, r.id) < (:c::timestamptz, :id::uuid)`, { c: after.createdAt, id: after.id });
    return qb.orderBy(createdMs, 'DESC').addOrderBy('r.id', 'DESC').limit(limit).getMany();
  }
}
