import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Keyset, toPage, type KeysetRow, type Page, type PageRequest, type TenantId } from '@arbiter/common';
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

interface SetRow extends KeysetRow {
  id: string;
  name: string;
  version: number;
  kind: LabelledSetKind;
  example_count: number;
  out_of_scope_count: number;
  created_at: Date;
  updated_at: Date;
}

interface ExampleRow extends KeysetRow {
  id: string;
  line: number | null;
  text: string;
  intent: string | null;
  decision_id: string | null;
  created_at: Date;
}

const SET_KEYSET = new Keyset('s.created_at', 's.id');
const EXAMPLE_KEYSET = new Keyset('e.created_at', 'e.id');

const SET_COLUMNS = `s.id, s.name, s.version, s.kind, s.created_at, s.updated_at,
  (SELECT count(*)::int FROM labelled_example e WHERE e.tenant_id = s.tenant_id AND e.set_id = s.id) AS example_count,
  (SELECT count(*)::int FROM labelled_example e WHERE e.tenant_id = s.tenant_id AND e.set_id = s.id AND e.intent IS NULL) AS out_of_scope_count`;

function toSet(r: SetRow): StoredLabelledSet {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    kind: r.kind,
    exampleCount: r.example_count,
    outOfScopeCount: r.out_of_scope_count,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

function toExample(r: Omit<ExampleRow, keyof KeysetRow>): StoredLabelledExample {
  return { id: r.id, line: r.line, text: r.text, intent: r.intent, decisionId: r.decision_id, createdAt: r.created_at.toISOString() };
}

/** Attempts of an upload whose version number a concurrent upload of the same name took. */
const VERSION_ATTEMPTS = 5;

/** SQL of labelled data (`labelled_set`, `labelled_example`). */
@Injectable()
export class LabelledSetRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Stores an upload as the next version of its name (1 for a new name), with its examples, in one
   * transaction: all or nothing. A concurrent upload of the same name makes the unique version constraint
   * fail; the upload then takes the next number.
   */
  async createVersion(
    tenantId: TenantId,
    name: string,
    examples: readonly LabelledExampleInput[],
    record?: (em: EntityManager, set: { id: string; version: number }) => Promise<void>,
  ): Promise<StoredLabelledSet> {
    for (let attempt = 1; ; attempt++) {
      try {
        const id = await this.ds.transaction(async (m) => {
          const [set]: { id: string; version: number }[] = await m.query(
            `INSERT INTO labelled_set (tenant_id, name, version, kind)
             SELECT $1::uuid, $2::varchar, COALESCE(max(version), 0) + 1, 'upload' FROM labelled_set WHERE tenant_id = $1::uuid AND name = $2::varchar
             RETURNING id, version`,
            [tenantId, name],
          );
          await m.query(
            `INSERT INTO labelled_example (tenant_id, set_id, line, text, intent)
             SELECT $1::uuid, $2::uuid, u.line, u.text, u.intent FROM unnest($3::int[], $4::text[], $5::text[]) AS u(line, text, intent)`,
            [tenantId, set!.id, examples.map((e) => e.line), examples.map((e) => e.text), examples.map((e) => e.intent)],
          );
          if (record) await record(m, set!);
          return set!.id;
        });
        return (await this.get(tenantId, id))!;
      } catch (error) {
        if (attempt >= VERSION_ATTEMPTS || !isVersionConflict(error)) throw error;
      }
    }
  }

  /** Newest first; `name` filters to the versions of one name. */
  async list(tenantId: TenantId, filter: { name?: string }, page: PageRequest): Promise<Page<StoredLabelledSet>> {
    const params: unknown[] = [tenantId];
    let where = 's.tenant_id = $1';
    if (filter.name !== undefined) {
      params.push(filter.name);
      where += ` AND s.name = $${params.length}`;
    }
    const rows: SetRow[] = await this.ds.query(
      `SELECT ${SET_COLUMNS}, ${SET_KEYSET.columns} FROM labelled_set s
        WHERE ${where} AND ${SET_KEYSET.where(params, page.after)}
        ORDER BY ${SET_KEYSET.orderBy} LIMIT ${SET_KEYSET.limit(params, page.limit)}`,
      params,
    );
    return toPage(rows, page.limit, toSet);
  }

  async get(tenantId: TenantId, id: string): Promise<StoredLabelledSet | null> {
    const rows: SetRow[] = await this.ds.query(`SELECT ${SET_COLUMNS}, ${SET_KEYSET.columns} FROM labelled_set s WHERE s.tenant_id = $1 AND s.id = $2`, [
      tenantId,
      id,
    ]);
    return rows[0] ? toSet(rows[0]) : null;
  }

  /** A set's examples, newest first (an upload's examples share its time: then by id; `line` gives the upload order). */
  async examples(tenantId: TenantId, setId: string, page: PageRequest): Promise<Page<StoredLabelledExample>> {
    const params: unknown[] = [tenantId, setId];
    const rows: ExampleRow[] = await this.ds.query(
      `SELECT e.id, e.line, e.text, e.intent, e.decision_id, e.created_at, ${EXAMPLE_KEYSET.columns} FROM labelled_example e
        WHERE e.tenant_id = $1 AND e.set_id = $2 AND ${EXAMPLE_KEYSET.where(params, page.after)}
        ORDER BY ${EXAMPLE_KEYSET.orderBy} LIMIT ${EXAMPLE_KEYSET.limit(params, page.limit)}`,
      params,
    );
    return toPage(rows, page.limit, toExample);
  }

  /** Deletes one set version with its examples, with `record` (its audit entry) in the transaction; false when the tenant has no such set. */
  async delete(tenantId: TenantId, id: string, record?: (em: EntityManager, set: { name: string; version: number }) => Promise<void>): Promise<boolean> {
    return this.ds.transaction(async (em) => {
      // TypeORM answers a DELETE … RETURNING with [rows, affected].
      const [rows]: [{ name: string; version: number }[], number] = await em.query(
        'DELETE FROM labelled_set WHERE tenant_id = $1 AND id = $2 RETURNING name, version',
        [tenantId, id],
      );
      if (rows[0] && record) await record(em, rows[0]);
      return rows.length > 0;
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
    record?: (em: EntityManager, example: StoredLabelledExample) => Promise<void>,
  ): Promise<StoredLabelledExample | null> {
    return this.ds.transaction(async (em) => {
      const rows: Omit<ExampleRow, keyof KeysetRow>[] = await em.query(
        `WITH d AS (SELECT id, message FROM decision_log WHERE tenant_id = $1 AND id = $2),
            s AS (INSERT INTO labelled_set (tenant_id, name, version, kind)
                  SELECT $1::uuid, '${REVIEW_SET_NAME}', 1, 'review' FROM d
                  ON CONFLICT (tenant_id, name, version) DO UPDATE SET updated_at = now()
                  RETURNING id)
       INSERT INTO labelled_example (tenant_id, set_id, text, intent, decision_id)
       SELECT $1::uuid, s.id, d.message, $3::varchar, d.id FROM s, d
       ON CONFLICT (tenant_id, set_id, decision_id) DO UPDATE SET intent = EXCLUDED.intent, created_at = now()
       RETURNING id, line, text, intent, decision_id, created_at`,
        [tenantId, decisionId, intent],
      );
      const example = rows[0] ? toExample(rows[0]) : null;
      if (example && record) await record(em, example);
      return example;
    });
  }
}

function isVersionConflict(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown; driverError?: { code?: unknown; constraint?: unknown } };
  const code = e.code ?? e.driverError?.code;
  const constraint = e.constraint ?? e.driverError?.constraint;
  return code === '23505' && constraint === 'uq_labelled_set_name_version';
}
