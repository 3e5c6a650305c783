import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Keyset, toPage, type KeysetRow, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import type { IntentFitStatus } from './entities/index.js';

export interface StoredIntentFit {
  id: string;
  status: IntentFitStatus;
  labelledSet: { id: string; name: string; version: number };
  targets: Record<string, number>;
  /** The config version the fit was computed against (send it as If-Match when applying). */
  configVersion: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  jobId: string | null;
  createdAt: string;
  finishedAt: string | null;
}

interface FitRow extends KeysetRow {
  id: string;
  status: IntentFitStatus;
  labelled_set_id: string;
  labelled_set_name: string;
  labelled_set_version: number;
  targets: Record<string, number>;
  config_version: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  job_run_id: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const FIT_KEYSET = new Keyset('f.created_at', 'f.id');
const FIT_COLUMNS = `f.id, f.status, f.labelled_set_id, f.labelled_set_name, f.labelled_set_version, f.targets,
  f.config_version::text AS config_version, f.result, f.error, f.job_run_id, f.created_at, f.finished_at`;

function toFit(r: Omit<FitRow, keyof KeysetRow>): StoredIntentFit {
  return {
    id: r.id,
    status: r.status,
    labelledSet: { id: r.labelled_set_id, name: r.labelled_set_name, version: r.labelled_set_version },
    targets: r.targets,
    configVersion: r.config_version,
    result: r.result,
    error: r.error,
    jobId: r.job_run_id,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

/** SQL of `intent_fit`. */
@Injectable()
export class IntentFitRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async create(
    tenantId: TenantId,
    set: { id: string; name: string; version: number },
    targets: Record<string, number>,
    record?: (em: EntityManager, id: string) => Promise<void>,
  ): Promise<string> {
    return this.ds.transaction(async (em) => {
      const rows: { id: string }[] = await em.query(
        `INSERT INTO intent_fit (tenant_id, labelled_set_id, labelled_set_name, labelled_set_version, targets) VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING id`,
        [tenantId, set.id, set.name, set.version, JSON.stringify(targets)],
      );
      if (record) await record(em, rows[0]!.id);
      return rows[0]!.id;
    });
  }

  async attachJob(tenantId: TenantId, id: string, jobRunId: string | null): Promise<void> {
    await this.ds.query('UPDATE intent_fit SET job_run_id = $3 WHERE tenant_id = $1 AND id = $2', [tenantId, id, jobRunId]);
  }

  async get(tenantId: TenantId, id: string): Promise<StoredIntentFit | null> {
    const rows: FitRow[] = await this.ds.query(`SELECT ${FIT_COLUMNS} FROM intent_fit f WHERE f.tenant_id = $1 AND f.id = $2`, [tenantId, id]);
    return rows[0] ? toFit(rows[0]) : null;
  }

  /** Newest first. */
  async list(tenantId: TenantId, page: PageRequest): Promise<Page<StoredIntentFit>> {
    const params: unknown[] = [tenantId];
    const rows: FitRow[] = await this.ds.query(
      `SELECT ${FIT_COLUMNS}, ${FIT_KEYSET.columns} FROM intent_fit f
        WHERE f.tenant_id = $1 AND ${FIT_KEYSET.where(params, page.after)}
        ORDER BY ${FIT_KEYSET.orderBy} LIMIT ${FIT_KEYSET.limit(params, page.limit)}`,
      params,
    );
    return toPage(rows, page.limit, toFit);
  }

  async markRunning(tenantId: TenantId, id: string): Promise<void> {
    await this.ds.query(`UPDATE intent_fit SET status = 'running' WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')`, [tenantId, id]);
  }

  async succeed(tenantId: TenantId, id: string, configVersion: string, result: unknown): Promise<void> {
    await this.ds.query(
      `UPDATE intent_fit SET status = 'succeeded', config_version = $3::bigint, result = $4::jsonb, error = NULL, finished_at = now() WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, configVersion, JSON.stringify(result)],
    );
  }

  async fail(tenantId: TenantId, id: string, error: string): Promise<void> {
    await this.ds.query(`UPDATE intent_fit SET status = 'failed', error = $3, finished_at = now() WHERE tenant_id = $1 AND id = $2`, [tenantId, id, error]);
  }

  /** Every example of a labelled set (text and label), in upload order. */
  async examples(tenantId: TenantId, setId: string): Promise<{ text: string; intent: string | null }[]> {
    return this.ds.query(
      'SELECT e.text, e.intent FROM labelled_example e WHERE e.tenant_id = $1 AND e.set_id = $2 ORDER BY e.line NULLS LAST, e.created_at, e.id',
      [tenantId, setId],
    );
  }
}
