import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Keyset, toPage, type KeysetRow, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { LABEL_JOIN } from './decision-log.repository.js';
import type { IntentFitStatus } from './entities/index.js';

/** Which logged decisions a replay re-routes: a time window (inclusive) or explicit ids. */
export type ReplayScope = { from: Date; to: Date } | { decisionIds: string[] };

export interface StoredIntentReplay {
  id: string;
  status: IntentFitStatus;
  window: { from: string; to: string } | null;
  decisionIds: string[] | null;
  candidate: Record<string, unknown>;
  /** Decisions in scope when the replay was requested. */
  decisions: number;
  report: Record<string, unknown> | null;
  error: string | null;
  jobId: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** One logged decision as a replay reads it (oldest first by (created_at, id)). */
export interface ReplayInput {
  id: string;
  createdAt: string;
  message: string;
  intent: string | null;
  reason: string;
  needClarify: boolean;
  confidence: number;
  labelled: boolean;
  label: string | null;
}

interface ReplayRow extends KeysetRow {
  id: string;
  status: IntentFitStatus;
  window_from: Date | null;
  window_to: Date | null;
  decision_ids: string[] | null;
  candidate: Record<string, unknown>;
  decisions: number;
  report: Record<string, unknown> | null;
  error: string | null;
  job_run_id: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const REPLAY_KEYSET = new Keyset('r.created_at', 'r.id');
const REPLAY_COLUMNS =
  'r.id, r.status, r.window_from, r.window_to, r.decision_ids, r.candidate, r.decisions, r.report, r.error, r.job_run_id, r.created_at, r.finished_at';

function toReplay(r: Omit<ReplayRow, keyof KeysetRow>): StoredIntentReplay {
  return {
    id: r.id,
    status: r.status,
    window: r.window_from !== null && r.window_to !== null ? { from: r.window_from.toISOString(), to: r.window_to.toISOString() } : null,
    decisionIds: r.decision_ids,
    candidate: r.candidate,
    decisions: r.decisions,
    report: r.report,
    error: r.error,
    jobId: r.job_run_id,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

/** `WHERE` of the decisions in scope, appending its parameters (after the tenant id at $1). */
/** The tenant's ($1) decisions in scope after the keyset position. */
function decisionsWhere(scope: ReplayScope, after: { createdAt: string; id: string } | null, params: unknown[]): string {
  let where = `d.tenant_id = $1 AND ${scopeSql(scope, params)}`;
  if (after !== null) {
    params.push(after.createdAt, after.id);
    where += ` AND (d.created_at, d.id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  return where;
}

function scopeSql(scope: ReplayScope, params: unknown[]): string {
  if ('decisionIds' in scope) {
    params.push(scope.decisionIds);
    return `d.id = ANY($${params.length}::uuid[])`;
  }
  params.push(scope.from, scope.to);
  return `d.created_at >= $${params.length - 1} AND d.created_at <= $${params.length}`;
}

/** SQL of `intent_replay`, and the read of logged decisions in a replay's scope. */
@Injectable()
export class IntentReplayRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Decisions in scope, or only those after `after` (the replay job's progress total on resume). */
  async countDecisions(tenantId: TenantId, scope: ReplayScope, after: { createdAt: string; id: string } | null = null): Promise<number> {
    const params: unknown[] = [tenantId];
    const rows: { n: number }[] = await this.ds.query(`SELECT count(*)::int AS n FROM decision_log d WHERE ${decisionsWhere(scope, after, params)}`, params);
    return rows[0]?.n ?? 0;
  }

  /** Records a replay; an empty scope is recorded finished with `report` at once. */
  async create(
    tenantId: TenantId,
    scope: ReplayScope,
    candidate: Record<string, unknown>,
    decisions: number,
    emptyReport: Record<string, unknown> | null,
    record?: (em: EntityManager, id: string) => Promise<void>,
  ): Promise<string> {
    const window = 'from' in scope ? scope : null;
    return this.ds.transaction(async (em) => {
      const rows: { id: string }[] = await em.query(
        `INSERT INTO intent_replay (tenant_id, window_from, window_to, decision_ids, candidate, decisions, status, report, finished_at)
       VALUES ($1, $2, $3, $4::uuid[], $5::jsonb, $6, $7::varchar, $8::jsonb, CASE WHEN $7::varchar = 'succeeded' THEN now() END) RETURNING id`,
        [
          tenantId,
          window?.from ?? null,
          window?.to ?? null,
          'decisionIds' in scope ? scope.decisionIds : null,
          JSON.stringify(candidate),
          decisions,
          emptyReport === null ? 'queued' : 'succeeded',
          emptyReport === null ? null : JSON.stringify(emptyReport),
        ],
      );
      if (record) await record(em, rows[0]!.id);
      return rows[0]!.id;
    });
  }

  async attachJob(tenantId: TenantId, id: string, jobRunId: string | null): Promise<void> {
    await this.ds.query('UPDATE intent_replay SET job_run_id = $3 WHERE tenant_id = $1 AND id = $2', [tenantId, id, jobRunId]);
  }

  async get(tenantId: TenantId, id: string): Promise<StoredIntentReplay | null> {
    const rows: ReplayRow[] = await this.ds.query(`SELECT ${REPLAY_COLUMNS} FROM intent_replay r WHERE r.tenant_id = $1 AND r.id = $2`, [tenantId, id]);
    return rows[0] ? toReplay(rows[0]) : null;
  }

  async list(tenantId: TenantId, page: PageRequest): Promise<Page<StoredIntentReplay>> {
    const params: unknown[] = [tenantId];
    const rows: ReplayRow[] = await this.ds.query(
      `SELECT ${REPLAY_COLUMNS}, ${REPLAY_KEYSET.columns} FROM intent_replay r
        WHERE r.tenant_id = $1 AND ${REPLAY_KEYSET.where(params, page.after)}
        ORDER BY ${REPLAY_KEYSET.orderBy} LIMIT ${REPLAY_KEYSET.limit(params, page.limit)}`,
      params,
    );
    return toPage(rows, page.limit, toReplay);
  }

  async markRunning(tenantId: TenantId, id: string): Promise<void> {
    await this.ds.query(`UPDATE intent_replay SET status = 'running' WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')`, [tenantId, id]);
  }

  async succeed(tenantId: TenantId, id: string, report: unknown): Promise<void> {
    await this.ds.query(
      `UPDATE intent_replay SET status = 'succeeded', report = $3::jsonb, error = NULL, finished_at = now() WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, JSON.stringify(report)],
    );
  }

  async fail(tenantId: TenantId, id: string, error: string): Promise<void> {
    await this.ds.query(`UPDATE intent_replay SET status = 'failed', error = $3, finished_at = now() WHERE tenant_id = $1 AND id = $2`, [tenantId, id, error]);
  }

  /** The next decisions in scope after `after` (oldest first), with their review labels. */
  async decisions(tenantId: TenantId, scope: ReplayScope, after: { createdAt: string; id: string } | null, limit: number): Promise<ReplayInput[]> {
    const params: unknown[] = [tenantId];
    const where = decisionsWhere(scope, after, params);
    params.push(limit);
    const rows: {
      id: string;
      created_at: string;
      message: string;
      intent: string | null;
      reason: string;
      need_clarify: boolean;
      confidence: number;
      labelled: boolean;
      label: string | null;
    }[] = await this.ds.query(
      `SELECT d.id, to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at, d.message, d.intent, d.reason,
              d.need_clarify, d.confidence, le.id IS NOT NULL AS labelled, le.intent AS label
         FROM decision_log d ${LABEL_JOIN}
        WHERE ${where}
        ORDER BY d.created_at, d.id LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at,
      message: r.message,
      intent: r.intent,
      reason: r.reason,
      needClarify: r.need_clarify,
      confidence: r.confidence,
      labelled: r.labelled,
      label: r.label,
    }));
  }
}
