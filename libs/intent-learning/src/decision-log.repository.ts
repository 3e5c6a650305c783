import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db } from '@arbiter/database';
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

const KEYSET = typedKeyset('d.created_at', 'd.id');

/** The logged decisions with the review set's label of each (the set is looked up by its reserved name; `le` may be absent). */
export function decisionsWithLabels(db: Db) {
  return db
    .selectFrom('decision_log as d')
    .leftJoin('labelled_set as rs', (j) =>
      j.onRef('rs.tenant_id', '=', 'd.tenant_id').on('rs.name', '=', REVIEW_SET_NAME).on('rs.version', '=', 1).on('rs.kind', '=', 'review'),
    )
    .leftJoin('labelled_example as le', (j) =>
      j.onRef('le.tenant_id', '=', 'd.tenant_id').onRef('le.set_id', '=', 'rs.id').onRef('le.decision_id', '=', 'd.id'),
    );
}

const COLUMNS = [
  'd.id',
  'd.created_at',
  'd.source',
  'd.session_id',
  'd.message',
  sql<string>`d.config_version::text`.as('config_version'),
  sql<string>`d.rules_version::text`.as('rules_version'),
  'd.intent',
  'd.reason',
  'd.need_clarify',
  'd.confidence',
  'd.candidates',
  'd.trace',
  'd.latency_ms',
  sql<boolean>`le.id IS NOT NULL`.as('label_present'),
  'le.intent as label_intent',
  'le.created_at as labelled_at',
] as const;

function toDecision(r: {
  id: string;
  created_at: Date;
  source: string;
  session_id: string | null;
  message: string;
  config_version: string;
  rules_version: string;
  intent: string | null;
  reason: string;
  need_clarify: boolean;
  confidence: number;
  candidates: unknown;
  trace: unknown;
  latency_ms: number;
  label_present: boolean;
  label_intent: string | null;
  labelled_at: Date | null;
}): StoredDecision {
  return {
    id: r.id,
    createdAt: r.created_at.toISOString(),
    source: r.source as DecisionSource,
    sessionId: r.session_id,
    message: r.message,
    configVersion: r.config_version,
    rulesVersion: r.rules_version,
    intent: r.intent,
    reason: r.reason,
    needClarify: r.need_clarify,
    confidence: r.confidence,
    candidates: r.candidates as StoredDecision['candidates'],
    trace: r.trace as StoredDecision['trace'],
    latencyMs: r.latency_ms,
    label: r.label_present ? { intent: r.label_intent, labelledAt: (r.labelled_at as Date).toISOString() } : null,
  };
}

/** Default retention of a tenant's decisions when it set none. */
export const DEFAULT_DECISION_RETENTION_DAYS = 30;

/** SQL of the decision log (`decision_log`, `decision_log_settings`), on the typed data layer (docs/data-layer.md). */
@Injectable()
export class DecisionLogRepository {
  constructor(private readonly database: Database) {}

  /**
   * Writes a batch of decisions, of any tenants, in one statement (the writer's flush: each row carries its
   * tenant, so this one method does not take a tenant first). Idempotent: a retried batch skips the rows
   * already written (ids are the writer's). One array parameter per column, whatever the batch size.
   */
  async insertBatch(rows: readonly DecisionLogRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof DecisionLogRow>(key: K) => rows.map((r) => r[key]);
    await sql`INSERT INTO decision_log (tenant_id, id, created_at, source, session_id, message, config_version, rules_version,
                                 intent, reason, need_clarify, confidence, candidates, trace, latency_ms)
       SELECT u.tenant_id, u.id, u.created_at, u.source, u.session_id, u.message, u.config_version::bigint, u.rules_version::bigint,
              u.intent, u.reason, u.need_clarify, u.confidence, u.candidates::jsonb, u.trace::jsonb, u.latency_ms
         FROM unnest(${col('tenantId')}::uuid[], ${col('id')}::uuid[], ${rows.map((r) => r.createdAt.toISOString())}::timestamptz[],
                     ${col('source')}::text[], ${col('sessionId')}::uuid[], ${col('message')}::text[], ${col('configVersion')}::text[],
                     ${col('rulesVersion')}::text[], ${col('intent')}::text[], ${col('reason')}::text[], ${col('needClarify')}::boolean[],
                     ${col('confidence')}::float8[], ${rows.map((r) => JSON.stringify(r.candidates))}::text[],
                     ${rows.map((r) => JSON.stringify(r.trace))}::text[], ${col('latencyMs')}::float8[])
              AS u(tenant_id, id, created_at, source, session_id, message, config_version, rules_version,
                   intent, reason, need_clarify, confidence, candidates, trace, latency_ms)
       ON CONFLICT (tenant_id, id) DO NOTHING`.execute(this.database.db);
  }

  /** Newest first, keyset over (created_at, id); filters are ANDed. */
  async list(tenantId: TenantId, filter: DecisionFilter, page: PageRequest): Promise<Page<StoredDecision>> {
    let query = decisionsWithLabels(this.database.db).select(COLUMNS).select(KEYSET.cursor).where('d.tenant_id', '=', tenantId);
    if (filter.from !== undefined) query = query.where('d.created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('d.created_at', '<=', filter.to);
    if (filter.intent !== undefined) query = query.where('d.intent', '=', filter.intent);
    if (filter.reason !== undefined) query = query.where('d.reason', '=', filter.reason);
    if (filter.needClarify !== undefined) query = query.where('d.need_clarify', '=', filter.needClarify);
    if (filter.source !== undefined) query = query.where('d.source', '=', filter.source);
    const rows = await query
      .where(KEYSET.after(page.after))
      .orderBy(KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, toDecision);
  }

  async get(tenantId: TenantId, id: string): Promise<StoredDecision | null> {
    const row = await decisionsWithLabels(this.database.db).select(COLUMNS).where('d.tenant_id', '=', tenantId).where('d.id', '=', id).executeTakeFirst();
    return row ? toDecision(row) : null;
  }

  /** The tenant's retention in days (the default when it set none). */
  async retentionDays(tenantId: TenantId): Promise<number> {
    const row = await this.database.db.selectFrom('decision_log_settings').select('retention_days').where('tenant_id', '=', tenantId).executeTakeFirst();
    return row?.retention_days ?? DEFAULT_DECISION_RETENTION_DAYS;
  }

  /** Sets the retention, with `record` (the change's audit entry, docs/http-edge.md "Audit log") in its transaction. */
  async setRetentionDays(tenantId: TenantId, days: number, record?: (tx: Db) => Promise<void>): Promise<void> {
    await this.database.transaction(async (tx) => {
      await tx
        .insertInto('decision_log_settings')
        .values({ tenant_id: tenantId, retention_days: days })
        .onConflict((c) =>
          c.column('tenant_id').doUpdateSet((eb) => ({ retention_days: eb.ref('excluded.retention_days'), updated_at: eb.ref('excluded.updated_at') })),
        )
        .execute();
      if (record) await record(tx);
    });
  }

  /**
   * Deletes up to `limit` of the tenant's decisions older than its retention (oldest first; the settings are
   * read in the same statement). Returns how many were deleted.
   */
  async purgeExpired(tenantId: TenantId, limit: number, now: Date = new Date()): Promise<number> {
    const result = await sql`
      DELETE FROM decision_log d
       WHERE d.tenant_id = ${tenantId} AND d.id IN (
         SELECT o.id FROM decision_log o
          WHERE o.tenant_id = ${tenantId}
            AND o.created_at < ${now.toISOString()}::timestamptz - make_interval(days => COALESCE((SELECT s.retention_days FROM decision_log_settings s WHERE s.tenant_id = ${tenantId}), ${DEFAULT_DECISION_RETENTION_DAYS}))
          ORDER BY o.created_at, o.id LIMIT ${limit})`.execute(this.database.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
