import { Injectable } from '@nestjs/common';
import { exactTimestampSql, toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db, type IntentReplay, type RawBuilder, type Selectable } from '@arbiter/database';
import { decisionsWithLabels } from './decision-log.repository.js';
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

const REPLAY_KEYSET = typedKeyset('r.created_at', 'r.id');
const REPLAY_COLUMNS = [
  'r.id',
  'r.status',
  'r.window_from',
  'r.window_to',
  'r.decision_ids',
  'r.candidate',
  'r.decisions',
  'r.report',
  'r.error',
  'r.job_run_id',
  'r.created_at',
  'r.finished_at',
] as const;

function toReplay(r: Omit<Selectable<IntentReplay>, 'tenant_id'>): StoredIntentReplay {
  return {
    id: r.id,
    status: r.status as IntentFitStatus,
    window: r.window_from !== null && r.window_to !== null ? { from: r.window_from.toISOString(), to: r.window_to.toISOString() } : null,
    decisionIds: r.decision_ids,
    candidate: r.candidate as Record<string, unknown>,
    decisions: r.decisions,
    report: r.report as Record<string, unknown> | null,
    error: r.error,
    jobId: r.job_run_id,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

/** The decisions (`d`) in scope after the keyset position (oldest first by (created_at, id)). */
function inScope(scope: ReplayScope, after: { createdAt: string; id: string } | null): RawBuilder<boolean> {
  const where =
    'decisionIds' in scope
      ? sql<boolean>`d.id = ANY(${scope.decisionIds}::uuid[])`
      : sql<boolean>`d.created_at >= ${scope.from} AND d.created_at <= ${scope.to}`;
  return after === null ? where : sql<boolean>`${where} AND (d.created_at, d.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`;
}

/** SQL of `intent_replay`, and the read of logged decisions in a replay's scope; on the typed data layer (docs/data-layer.md). */
@Injectable()
export class IntentReplayRepository {
  constructor(private readonly database: Database) {}

  /** Decisions in scope, or only those after `after` (the replay job's progress total on resume). */
  async countDecisions(tenantId: TenantId, scope: ReplayScope, after: { createdAt: string; id: string } | null = null): Promise<number> {
    const row = await this.database.db
      .selectFrom('decision_log as d')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('d.tenant_id', '=', tenantId)
      .where(inScope(scope, after))
      .executeTakeFirst();
    return row?.n ?? 0;
  }

  /** Records a replay; an empty scope is recorded finished with `report` at once. */
  async create(
    tenantId: TenantId,
    scope: ReplayScope,
    candidate: Record<string, unknown>,
    decisions: number,
    emptyReport: Record<string, unknown> | null,
    record?: (tx: Db, id: string) => Promise<void>,
  ): Promise<string> {
    const window = 'from' in scope ? scope : null;
    return this.database.transaction(async (tx) => {
      const { id } = await tx
        .insertInto('intent_replay')
        .values({
          tenant_id: tenantId,
          window_from: window?.from ?? null,
          window_to: window?.to ?? null,
          decision_ids: 'decisionIds' in scope ? scope.decisionIds : null,
          candidate: JSON.stringify(candidate),
          decisions,
          status: emptyReport === null ? 'queued' : 'succeeded',
          report: emptyReport === null ? null : JSON.stringify(emptyReport),
          finished_at: emptyReport === null ? null : sql<Date>`now()`,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (record) await record(tx, id);
      return id;
    });
  }

  async attachJob(tenantId: TenantId, id: string, jobRunId: string | null): Promise<void> {
    await this.database.db.updateTable('intent_replay').set({ job_run_id: jobRunId }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async get(tenantId: TenantId, id: string): Promise<StoredIntentReplay | null> {
    const row = await this.database.db
      .selectFrom('intent_replay as r')
      .select(REPLAY_COLUMNS)
      .where('r.tenant_id', '=', tenantId)
      .where('r.id', '=', id)
      .executeTakeFirst();
    return row ? toReplay(row) : null;
  }

  async list(tenantId: TenantId, page: PageRequest): Promise<Page<StoredIntentReplay>> {
    const rows = await this.database.db
      .selectFrom('intent_replay as r')
      .select(REPLAY_COLUMNS)
      .select(REPLAY_KEYSET.cursor)
      .where('r.tenant_id', '=', tenantId)
      .where(REPLAY_KEYSET.after(page.after))
      .orderBy(REPLAY_KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, toReplay);
  }

  async markRunning(tenantId: TenantId, id: string): Promise<void> {
    await this.database.db
      .updateTable('intent_replay')
      .set({ status: 'running' })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }

  async succeed(tenantId: TenantId, id: string, report: unknown): Promise<void> {
    await this.database.db
      .updateTable('intent_replay')
      .set({ status: 'succeeded', report: JSON.stringify(report), error: null, finished_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async fail(tenantId: TenantId, id: string, error: string): Promise<void> {
    await this.database.db
      .updateTable('intent_replay')
      .set({ status: 'failed', error, finished_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** The next decisions in scope after `after` (oldest first), with their review labels. */
  async decisions(tenantId: TenantId, scope: ReplayScope, after: { createdAt: string; id: string } | null, limit: number): Promise<ReplayInput[]> {
    const rows = await decisionsWithLabels(this.database.db)
      .select([
        'd.id',
        sql<string>`${sql.raw(exactTimestampSql('d.created_at'))}`.as('created_at'),
        'd.message',
        'd.intent',
        'd.reason',
        'd.need_clarify',
        'd.confidence',
        sql<boolean>`le.id IS NOT NULL`.as('labelled'),
        'le.intent as label',
      ])
      .where('d.tenant_id', '=', tenantId)
      .where(inScope(scope, after))
      .orderBy('d.created_at')
      .orderBy('d.id')
      .limit(limit)
      .execute();
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
