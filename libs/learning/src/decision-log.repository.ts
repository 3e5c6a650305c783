import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Keyset, toPage, type KeysetRow, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { REVIEW_SET_NAME } from './labelled-data.js';

export type DecisionSource = 'route' | 'chat';

/** A decision as the writer buffers it (one row of `decision_log`). */
export interface DecisionLogRow {
  tenantId: string;
  id: string;
  createdAt: Date;
  source: DecisionSource;
  sessionId: string | null;
  message: string;
  configVersion: string;
  rulesVersion: string;
  intent: string | null;
  reason: string;
  needClarify: boolean;
  confidence: number;
  candidates: readonly { intent: string; confidence: number }[];
  trace: object;
  latencyMs: number;
}

/** A logged decision as listed, with its review label when an operator put one on it. */
export interface StoredDecision {
  id: string;
  createdAt: string;
  source: DecisionSource;
  sessionId: string | null;
  message: string;
  configVersion: string;
  rulesVersion: string;
  intent: string | null;
  reason: string;
  needClarify: boolean;
  confidence: number;
  candidates: { intent: string; confidence: number }[];
  trace: Record<string, unknown>;
  latencyMs: number;
  /** The operator's label (`intent` null = out of scope), or null when not labelled. */
  label: { intent: string | null; labelledAt: string } | null;
}

export interface DecisionFilter {
  /** Inclusive bounds on the decision time. */
  from?: Date;
  to?: Date;
  intent?: string;
  reason?: string;
  needClarify?: boolean;
  source?: DecisionSource;
}

interface DecisionRow extends KeysetRow {
  id: string;
  created_at: Date;
  source: DecisionSource;
  session_id: string | null;
  message: string;
  config_version: string;
  rules_version: string;
  intent: string | null;
  reason: string;
  need_clarify: boolean;
  confidence: number;
  candidates: { intent: string; confidence: number }[];
  trace: Record<string, unknown>;
  latency_ms: number;
  label_present: boolean;
  label_intent: string | null;
  labelled_at: Date | null;
}

const KEYSET = new Keyset('d.created_at', 'd.id');

/** The review set's label of each decision (the set is looked up by its reserved name; `le` may be absent). */
export const LABEL_JOIN = `LEFT JOIN labelled_set rs ON rs.tenant_id = d.tenant_id AND rs.name = '${REVIEW_SET_NAME}' AND rs.version = 1 AND rs.kind = 'review'
  LEFT JOIN labelled_example le ON le.tenant_id = d.tenant_id AND le.set_id = rs.id AND le.decision_id = d.id`;

const COLUMNS = `d.id, d.created_at, d.source, d.session_id, d.message, d.config_version::text AS config_version, d.rules_version::text AS rules_version,
  d.intent, d.reason, d.need_clarify, d.confidence, d.candidates, d.trace, d.latency_ms,
  le.id IS NOT NULL AS label_present, le.intent AS label_intent, le.created_at AS labelled_at`;

function toDecision(r: DecisionRow): StoredDecision {
  return {
    id: r.id,
    createdAt: r.created_at.toISOString(),
    source: r.source,
    sessionId: r.session_id,
    message: r.message,
    configVersion: r.config_version,
    rulesVersion: r.rules_version,
    intent: r.intent,
    reason: r.reason,
    needClarify: r.need_clarify,
    confidence: r.confidence,
    candidates: r.candidates,
    trace: r.trace,
    latencyMs: r.latency_ms,
    label: r.label_present ? { intent: r.label_intent, labelledAt: (r.labelled_at as Date).toISOString() } : null,
  };
}

/** Default retention of a tenant's decisions when it set none. */
export const DEFAULT_DECISION_RETENTION_DAYS = 30;

/** SQL of the decision log (`decision_log`, `decision_log_settings`). */
@Injectable()
export class DecisionLogRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Writes a batch of decisions, of any tenants, in one statement (the writer's flush: each row carries its
   * tenant, so this one method does not take a tenant first). Idempotent: a retried batch skips the rows
   * already written (ids are the writer's).
   */
  async insertBatch(rows: readonly DecisionLogRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof DecisionLogRow>(key: K) => rows.map((r) => r[key]);
    await this.ds.query(
      `INSERT INTO decision_log (tenant_id, id, created_at, source, session_id, message, config_version, rules_version,
                                 intent, reason, need_clarify, confidence, candidates, trace, latency_ms)
       SELECT u.tenant_id, u.id, u.created_at, u.source, u.session_id, u.message, u.config_version::bigint, u.rules_version::bigint,
              u.intent, u.reason, u.need_clarify, u.confidence, u.candidates::jsonb, u.trace::jsonb, u.latency_ms
         FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::boolean[], $12::float8[], $13::text[], $14::text[], $15::float8[])
              AS u(tenant_id, id, created_at, source, session_id, message, config_version, rules_version,
                   intent, reason, need_clarify, confidence, candidates, trace, latency_ms)
       ON CONFLICT (tenant_id, id) DO NOTHING`,
      [
        col('tenantId'),
        col('id'),
        rows.map((r) => r.createdAt.toISOString()),
        col('source'),
        col('sessionId'),
        col('message'),
        col('configVersion'),
        col('rulesVersion'),
        col('intent'),
        col('reason'),
        col('needClarify'),
        col('confidence'),
        rows.map((r) => JSON.stringify(r.candidates)),
        rows.map((r) => JSON.stringify(r.trace)),
        col('latencyMs'),
      ],
    );
  }

  /** Newest first, keyset over (created_at, id); filters are ANDed. */
  async list(tenantId: TenantId, filter: DecisionFilter, page: PageRequest): Promise<Page<StoredDecision>> {
    const params: unknown[] = [tenantId];
    const where = ['d.tenant_id = $1'];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (filter.from !== undefined) add((p) => `d.created_at >= ${p}::timestamptz`, filter.from.toISOString());
    if (filter.to !== undefined) add((p) => `d.created_at <= ${p}::timestamptz`, filter.to.toISOString());
    if (filter.intent !== undefined) add((p) => `d.intent = ${p}`, filter.intent);
    if (filter.reason !== undefined) add((p) => `d.reason = ${p}`, filter.reason);
    if (filter.needClarify !== undefined) add((p) => `d.need_clarify = ${p}`, filter.needClarify);
    if (filter.source !== undefined) add((p) => `d.source = ${p}`, filter.source);
    const rows: DecisionRow[] = await this.ds.query(
      `SELECT ${COLUMNS}, ${KEYSET.columns} FROM decision_log d ${LABEL_JOIN}
        WHERE ${where.join(' AND ')} AND ${KEYSET.where(params, page.after)}
        ORDER BY ${KEYSET.orderBy} LIMIT ${KEYSET.limit(params, page.limit)}`,
      params,
    );
    return toPage(rows, page.limit, toDecision);
  }

  async get(tenantId: TenantId, id: string): Promise<StoredDecision | null> {
    const rows: DecisionRow[] = await this.ds.query(
      `SELECT ${COLUMNS}, ${KEYSET.columns} FROM decision_log d ${LABEL_JOIN} WHERE d.tenant_id = $1 AND d.id = $2`,
      [tenantId, id],
    );
    return rows[0] ? toDecision(rows[0]) : null;
  }

  /** The tenant's retention in days (the default when it set none). */
  async retentionDays(tenantId: TenantId): Promise<number> {
    const rows: { retention_days: number }[] = await this.ds.query('SELECT retention_days FROM decision_log_settings WHERE tenant_id = $1', [tenantId]);
    return rows[0]?.retention_days ?? DEFAULT_DECISION_RETENTION_DAYS;
  }

  /** Sets the retention, with `record` (the change's audit entry, docs/http-edge.md "Audit log") in its transaction. */
  async setRetentionDays(tenantId: TenantId, days: number, record?: (em: EntityManager) => Promise<void>): Promise<void> {
    await this.ds.transaction(async (em) => {
      await em.query(
        `INSERT INTO decision_log_settings (tenant_id, retention_days) VALUES ($1, $2)
         ON CONFLICT (tenant_id) DO UPDATE SET retention_days = EXCLUDED.retention_days, updated_at = now()`,
        [tenantId, days],
      );
      if (record) await record(em);
    });
  }

  /**
   * Deletes up to `limit` of the tenant's decisions older than its retention (oldest first; the settings are
   * read in the same statement). Returns how many were deleted.
   */
  async purgeExpired(tenantId: TenantId, limit: number, now: Date = new Date()): Promise<number> {
    const res: [unknown[], number] = await this.ds.query(
      `DELETE FROM decision_log d
        WHERE d.tenant_id = $1 AND d.id IN (
          SELECT o.id FROM decision_log o
           WHERE o.tenant_id = $1
             AND o.created_at < $2::timestamptz - make_interval(days => COALESCE((SELECT s.retention_days FROM decision_log_settings s WHERE s.tenant_id = $1), $3))
           ORDER BY o.created_at, o.id LIMIT $4)`,
      [tenantId, now.toISOString(), DEFAULT_DECISION_RETENTION_DAYS, limit],
    );
    return res[1];
  }
}
