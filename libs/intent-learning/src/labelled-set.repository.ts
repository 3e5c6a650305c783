import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PageRequest, type TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db, type LabelledExample, type LabelledSet, type Selectable } from '@arbiter/database';
import type { LabelledSetKind } from './entities/index.js';
import { REVIEW_SET_NAME, type LabelledExampleInput } from './labelled-data.js';

export interface StoredLabelledSet {
  id: string;
  name: string;
  version: number;
  kind: LabelledSetKind;
  exampleCount: number;
  /** Examples labelled out of scope (intent null). */
  outOfScopeCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface StoredLabelledExample {
  id: string;
  line: number | null;
  text: string;
  intent: string | null;
  decisionId: string | null;
  createdAt: string;
}

const SET_KEYSET = typedKeyset('s.created_at', 's.id');
const EXAMPLE_KEYSET = typedKeyset('e.created_at', 'e.id');

const SET_COLUMNS = [
  's.id',
  's.name',
  's.version',
  's.kind',
  's.created_at',
  's.updated_at',
  sql<number>`(SELECT count(*)::int FROM labelled_example e WHERE e.tenant_id = s.tenant_id AND e.set_id = s.id)`.as('example_count'),
  sql<number>`(SELECT count(*)::int FROM labelled_example e WHERE e.tenant_id = s.tenant_id AND e.set_id = s.id AND e.intent IS NULL)`.as('out_of_scope_count'),
] as const;

const EXAMPLE_COLUMNS = ['id', 'line', 'text', 'intent', 'decision_id', 'created_at'] as const;

type SetRow = Omit<Selectable<LabelledSet>, 'tenant_id'> & { example_count: number; out_of_scope_count: number };
type ExampleRow = Pick<Selectable<LabelledExample>, (typeof EXAMPLE_COLUMNS)[number]>;

function toSet(r: SetRow): StoredLabelledSet {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    kind: r.kind as LabelledSetKind,
    exampleCount: r.example_count,
    outOfScopeCount: r.out_of_scope_count,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

function toExample(r: ExampleRow): StoredLabelledExample {
  return { id: r.id, line: r.line, text: r.text, intent: r.intent, decisionId: r.decision_id, createdAt: r.created_at.toISOString() };
}

/** Attempts of an upload whose version number a concurrent upload of the same name took. */
const VERSION_ATTEMPTS = 5;

/** SQL of labelled data (`labelled_set`, `labelled_example`), on the typed data layer (docs/data-layer.md). */
@Injectable()
export class LabelledSetRepository {
  constructor(private readonly database: Database) {}

  /**
   * Stores an upload as the next version of its name (1 for a new name), with its examples, in one
   * transaction: all or nothing. A concurrent upload of the same name makes the unique version constraint
   * fail; the upload then takes the next number.
   */
  async createVersion(
    tenantId: TenantId,
    name: string,
    examples: readonly LabelledExampleInput[],
    record?: (tx: Db, set: { id: string; version: number }) => Promise<void>,
  ): Promise<StoredLabelledSet> {
    for (let attempt = 1; ; attempt++) {
      try {
        const id = await this.database.transaction(async (tx) => {
          const set = await tx
            .insertInto('labelled_set')
            .columns(['tenant_id', 'name', 'version', 'kind'])
            .expression(
              sql<{
                tenant_id: string;
                name: string;
                version: number;
                kind: string;
              }>`SELECT ${tenantId}::uuid, ${name}::varchar, COALESCE(max(version), 0) + 1, 'upload'
                FROM labelled_set WHERE tenant_id = ${tenantId}::uuid AND name = ${name}::varchar`,
            )
            .returning(['id', 'version'])
            .executeTakeFirstOrThrow();
          // One array parameter per column, whatever the number of examples.
          await sql`INSERT INTO labelled_example (tenant_id, set_id, line, text, intent)
            SELECT ${tenantId}::uuid, ${set.id}::uuid, u.line, u.text, u.intent
              FROM unnest(${examples.map((e) => e.line)}::int[], ${examples.map((e) => e.text)}::text[], ${examples.map((e) => e.intent)}::text[]) AS u(line, text, intent)`.execute(
            tx,
          );
          if (record) await record(tx, set);
          return set.id;
        });
        return (await this.get(tenantId, id))!;
      } catch (error) {
        if (attempt >= VERSION_ATTEMPTS || !isVersionConflict(error)) throw error;
      }
    }
  }

  /** Newest first; `name` filters to the versions of one name. */
  async list(tenantId: TenantId, filter: { name?: string }, page: PageRequest): Promise<Page<StoredLabelledSet>> {
    let query = this.database.db.selectFrom('labelled_set as s').select(SET_COLUMNS).select(SET_KEYSET.cursor).where('s.tenant_id', '=', tenantId);
    if (filter.name !== undefined) query = query.where('s.name', '=', filter.name);
    const rows = await query
      .where(SET_KEYSET.after(page.after))
      .orderBy(SET_KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, toSet);
  }

  async get(tenantId: TenantId, id: string): Promise<StoredLabelledSet | null> {
    const row = await this.database.db
      .selectFrom('labelled_set as s')
      .select(SET_COLUMNS)
      .where('s.tenant_id', '=', tenantId)
      .where('s.id', '=', id)
      .executeTakeFirst();
    return row ? toSet(row) : null;
  }

  /** A set's examples, newest first (an upload's examples share its time: then by id; `line` gives the upload order). */
  async examples(tenantId: TenantId, setId: string, page: PageRequest): Promise<Page<StoredLabelledExample>> {
    const rows = await this.database.db
      .selectFrom('labelled_example as e')
      .select(EXAMPLE_COLUMNS)
      .select(EXAMPLE_KEYSET.cursor)
      .where('e.tenant_id', '=', tenantId)
      .where('e.set_id', '=', setId)
      .where(EXAMPLE_KEYSET.after(page.after))
      .orderBy(EXAMPLE_KEYSET.orderBy)
      .limit(page.limit + 1)
      .execute();
    return toPage(rows, page.limit, toExample);
  }

  /** Deletes one set version with its examples, with `record` (its audit entry) in the transaction; false when the tenant has no such set. */
  async delete(tenantId: TenantId, id: string, record?: (tx: Db, set: { name: string; version: number }) => Promise<void>): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const set = await tx.deleteFrom('labelled_set').where('tenant_id', '=', tenantId).where('id', '=', id).returning(['name', 'version']).executeTakeFirst();
      if (set && record) await record(tx, set);
      return set !== undefined;
    });
  }

  /**
   * Puts the operator's label on a logged decision, in one statement: the tenant's review set is created on
   * first use, the example (the decision's message) is inserted or its intent replaced. Returns null when the
   * tenant has no such decision (nothing is written then).
   */
  async labelDecision(
    tenantId: TenantId,
    decisionId: string,
    intent: string | null,
    record?: (tx: Db, example: StoredLabelledExample) => Promise<void>,
  ): Promise<StoredLabelledExample | null> {
    return this.database.transaction(async (tx) => {
      const { rows } = await sql<ExampleRow>`
        WITH d AS (SELECT id, message FROM decision_log WHERE tenant_id = ${tenantId} AND id = ${decisionId}),
            s AS (INSERT INTO labelled_set (tenant_id, name, version, kind)
                  SELECT ${tenantId}::uuid, ${sql.lit(REVIEW_SET_NAME)}, 1, 'review' FROM d
                  ON CONFLICT (tenant_id, name, version) DO UPDATE SET updated_at = EXCLUDED.updated_at
                  RETURNING id)
       INSERT INTO labelled_example (tenant_id, set_id, text, intent, decision_id)
       SELECT ${tenantId}::uuid, s.id, d.message, ${intent}::varchar, d.id FROM s, d
       ON CONFLICT (tenant_id, set_id, decision_id) DO UPDATE SET intent = EXCLUDED.intent, created_at = EXCLUDED.created_at
       RETURNING id, line, text, intent, decision_id, created_at`.execute(tx);
      const example = rows[0] ? toExample(rows[0]) : null;
      if (example && record) await record(tx, example);
      return example;
    });
  }
}

/**
 * The unique version constraint refused the insert (pg's error carries the code and the constraint). On a Citus
 * cluster the error comes from the shard: it names the shard's copy (the shard id appended) and only in its message,
 * without the constraint field (docs/SCALING.md "Running on Citus").
 */
function isVersionConflict(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== '23505') return false;
  const constraint =
    typeof e.constraint === 'string' ? e.constraint : typeof e.message === 'string' ? /unique constraint "([^"]+)"/.exec(e.message)?.[1] : undefined;
  return constraint !== undefined && /^uq_labelled_set_name_version(_\d+)?$/.test(constraint);
}
