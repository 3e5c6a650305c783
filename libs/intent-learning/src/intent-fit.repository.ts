import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db, type IntentFit, type Selectable } from '@arbiter/database';
import type { FitTargets } from '@arbiter/intent';
import type { IntentFitStatus } from './entities/index.js';

export interface StoredIntentFit {
  id: string;
  status: IntentFitStatus;
  labelledSet: { id: string; name: string; version: number };
  targets: Partial<FitTargets>;
  /** The config version the fit was computed against (send it as If-Match when applying). */
  configVersion: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  jobId: string | null;
  createdAt: string;
  finishedAt: string | null;
}

const FIT_KEYSET = typedKeyset('f.created_at', 'f.id');
const FIT_COLUMNS = [
  'f.id',
  'f.status',
  'f.labelled_set_id',
  'f.labelled_set_name',
  'f.labelled_set_version',
  'f.targets',
  sql<string | null>`f.config_version::text`.as('config_version'),
  'f.result',
  'f.error',
  'f.job_run_id',
  'f.created_at',
  'f.finished_at',
] as const;

type FitRow = Omit<Selectable<IntentFit>, 'tenant_id' | 'config_version'> & { config_version: string | null };

function toFit(r: FitRow): StoredIntentFit {
  return {
    id: r.id,
    status: r.status as IntentFitStatus,
    labelledSet: { id: r.labelled_set_id, name: r.labelled_set_name, version: r.labelled_set_version },
    targets: r.targets as Partial<FitTargets>,
    configVersion: r.config_version,
    result: r.result as Record<string, unknown> | null,
    error: r.error,
    jobId: r.job_run_id,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

/** SQL of `intent_fit`, on the typed data layer (docs/data-layer.md). */
@Injectable()
export class IntentFitRepository {
  constructor(private readonly database: Database) {}

  async create(
    tenantId: TenantId,
    set: { id: string; name: string; version: number },
    targets: Partial<FitTargets>,
    record?: (tx: Db, id: string) => Promise<void>,
  ): Promise<string> {
    return this.database.transaction(async (tx) => {
      const { id } = await tx
        .insertInto('intent_fit')
        .values({
          tenant_id: tenantId,
          labelled_set_id: set.id,
          labelled_set_name: set.name,
          labelled_set_version: set.version,
          targets: JSON.stringify(targets),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (record) await record(tx, id);
      return id;
    });
  }

  async attachJob(tenantId: TenantId, id: string, jobRunId: string | null): Promise<void> {
    await this.database.db.updateTable('intent_fit').set({ job_run_id: jobRunId }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async get(tenantId: TenantId, id: string): Promise<StoredIntentFit | null> {
    const row = await this.database.db
      .selectFrom('intent_fit as f')
      .select(FIT_COLUMNS)
      .where('f.tenant_id', '=', tenantId)
      .where('f.id', '=', id)
      .executeTakeFirst();
    return row ? toFit(row) : null;
  }

  /** Newest first. */
  async list(tenantId: TenantId, page: PageRequest): Promise<Page<StoredIntentFit>> {
    const rows = await this.database.db
      .selectFrom('intent_fit as f')
      .select(FIT_COLUMNS)
      .select(FIT_KEYSET.cursor)
      .where('f.tenant_id', '=', tenantId)
      .where(FIT_KEYSET.after(page.after))
      .orderBy(FIT_KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, toFit);
  }

  async markRunning(tenantId: TenantId, id: string): Promise<void> {
    await this.database.db
      .updateTable('intent_fit')
      .set({ status: 'running' })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }

  async succeed(tenantId: TenantId, id: string, configVersion: string, result: unknown): Promise<void> {
    await this.database.db
      .updateTable('intent_fit')
      .set({ status: 'succeeded', config_version: configVersion, result: JSON.stringify(result), error: null, finished_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async fail(tenantId: TenantId, id: string, error: string): Promise<void> {
    await this.database.db
      .updateTable('intent_fit')
      .set({ status: 'failed', error, finished_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Every example of a labelled set (text and label), in upload order. */
  async examples(tenantId: TenantId, setId: string): Promise<{ text: string; intent: string | null }[]> {
    return this.database.db
      .selectFrom('labelled_example as e')
      .select(['e.text', 'e.intent'])
      .where('e.tenant_id', '=', tenantId)
      .where('e.set_id', '=', setId)
      .orderBy('e.line', (o) => o.nullsLast())
      .orderBy('e.created_at')
      .orderBy('e.id')
      .execute();
  }
}
