import { Injectable } from '@nestjs/common';
import type { KeysetCursor, KeysetRow, TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type RawBuilder, type Recorder } from '@arbiter/database';
import type { IndexedCase } from './case-matcher.js';
import type { CaseSourceType, FaultCategory } from './case-library.types.js';

/** What a replica's case index is built from: one snapshot of the settings and the active cases. */
export interface CaseIndexSnapshot {
  /** The sum of the tenant's `case_library_version` slots ('0' before its first change). */
  version: string;
  /** null = the default threshold. */
  threshold: number | null;
  cases: IndexedCase[];
}

export interface CaseLibrarySettingsRow {
  threshold: number | null;
  version: string;
  updatedAt: Date | null;
}

/** A case; its keyset key is (created_at, id) at microsecond precision. */
export interface CaseRow extends KeysetRow {
  id: string;
  sessionId: string | null;
  query: string;
  answer: string;
  faultCategory: FaultCategory;
  errorCode: string | null;
  sourceType: CaseSourceType;
  createdAt: Date;
  updatedAt: Date;
}

export interface CaseEdit {
  query?: string;
  answer?: string;
  faultCategory?: FaultCategory;
  errorCode?: string | null;
}

export interface NewManualCase {
  query: string;
  answer: string;
  faultCategory: FaultCategory;
  errorCode: string | null;
}

/** A session's AUTO case as the feedback post of the session changed it: `inserted` is false when it was restored or retracted. */
export interface SessionCaseChange {
  id: string;
  inserted: boolean;
}

/** Keyset keys keep microseconds (a JS Date would drop them and skip rows between pages). */
const CASE_KEYSET = typedKeyset('created_at', 'id');
// A write selects these from its rows in a CTE, not in its RETURNING: the cursor's `to_char` is not IMMUTABLE, which
// Citus refuses in the RETURNING of a distributed table (docs/SCALING.md "Running on Citus").
const CASE_COLUMNS = sql`id, session_id AS "sessionId", query, answer, fault_category AS "faultCategory", error_code AS "errorCode",
  source_type AS "sourceType", created_at AS "createdAt", updated_at AS "updatedAt", ${sql.join(CASE_KEYSET.cursor)}`;

/**
 * The case library (migrations 0030, 0150): the only code that writes `case_library`, `case_library_settings` (and,
 * through their triggers, `case_library_version`). Cases are listed, edited, created by operators and retracted here;
 * the index snapshot and versions the chat's case index is built and refreshed from; the threshold setting; and the
 * fragments a feedback post embeds in its one statement to activate or retract the session's AUTO case
 * (docs/hot-paths.md "Feedback"), as the sessions lib's `SessionFeedbackState` does for `diagnosis_session`.
 * On the typed data layer (docs/data-layer.md). Every method is scoped by the tenant id it takes first.
 */
@Injectable()
export class CaseLibraryRepository {
  constructor(private readonly database: Database) {}

  /** The tenant's version, threshold and newest `limit` active cases, in one statement (one snapshot). */
  async indexSnapshot(tenantId: TenantId, limit: number): Promise<CaseIndexSnapshot> {
    const {
      rows: [row],
    } = await sql<{
      version: string | null;
      threshold: number | null;
      cases: { id: string; query: string; answer: string; sourceType: CaseSourceType; updatedAt: string }[];
    }>`SELECT (SELECT sum(version)::text FROM case_library_version WHERE tenant_id = ${tenantId}) AS version,
              (SELECT answer_threshold FROM case_library_settings WHERE tenant_id = ${tenantId}) AS threshold,
              COALESCE((SELECT json_agg(json_build_object('id', c.id, 'query', c.query, 'answer', c.answer, 'sourceType', c.source_type,
                                                         'updatedAt', c.updated_at) ORDER BY c.updated_at DESC, c.id)
                          FROM (SELECT id, query, answer, source_type, updated_at FROM case_library
                                 WHERE tenant_id = ${tenantId} AND retracted_at IS NULL
                                 ORDER BY updated_at DESC, id LIMIT ${limit}) c), '[]'::json) AS cases`.execute(this.database.db);
    return {
      version: row?.version ?? '0',
      threshold: row?.threshold ?? null,
      cases: (row?.cases ?? []).map((c) => ({ id: c.id, query: c.query, answer: c.answer, sourceType: c.sourceType, updatedAt: Date.parse(c.updatedAt) })),
    };
  }

  /**
   * Current versions of the given tenants (one indexed statement, for the cross-replica poll); tenants that
   * never changed are absent (version '0').
   */
  async versions(tenantIds: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await sql<{ tenant_id: string; version: string }>`
      SELECT tenant_id, sum(version)::text AS version FROM case_library_version WHERE tenant_id = ANY(${tenantIds}::uuid[]) GROUP BY tenant_id`.execute(
      this.database.db,
    );
    return new Map(rows.map((r) => [r.tenant_id, r.version]));
  }

  async settings(tenantId: TenantId): Promise<CaseLibrarySettingsRow> {
    const { rows } = await sql<CaseLibrarySettingsRow>`
      SELECT (SELECT answer_threshold FROM case_library_settings WHERE tenant_id = ${tenantId}) AS threshold,
             COALESCE((SELECT sum(version) FROM case_library_version WHERE tenant_id = ${tenantId}), 0)::text AS version,
             (SELECT updated_at FROM case_library_settings WHERE tenant_id = ${tenantId}) AS "updatedAt"`.execute(this.database.db);
    return rows[0]!;
  }

  /** Sets the threshold (null = back to the default: the row is deleted); the trigger bumps the version. */
  async setThreshold(tenantId: TenantId, threshold: number | null, record?: Recorder<true>): Promise<void> {
    await this.database.recorded(async (db) => {
      if (threshold === null) {
        await db.deleteFrom('case_library_settings').where('tenant_id', '=', tenantId).execute();
        return true as const;
      }
      await db
        .insertInto('case_library_settings')
        .values({ tenant_id: tenantId, answer_threshold: threshold })
        .onConflict((oc) =>
          oc
            .column('tenant_id')
            .doUpdateSet({ answer_threshold: (eb) => eb.ref('excluded.answer_threshold'), updated_at: (eb) => eb.ref('excluded.updated_at') }),
        )
        .execute();
      return true as const;
    }, record);
  }

  /** Active (not retracted) cases, newest first, optionally filtered. */
  async listCases(
    tenantId: TenantId,
    filter: { faultCategory?: FaultCategory; sourceType?: CaseSourceType },
    limit: number,
    after?: KeysetCursor,
  ): Promise<CaseRow[]> {
    const { rows } = await sql<CaseRow>`
      SELECT ${CASE_COLUMNS} FROM case_library
       WHERE tenant_id = ${tenantId} AND retracted_at IS NULL
         ${filter.faultCategory ? sql`AND fault_category = ${filter.faultCategory}` : sql``}
         ${filter.sourceType ? sql`AND source_type = ${filter.sourceType}` : sql``}
         AND ${CASE_KEYSET.after(after ?? null)}
       ORDER BY ${CASE_KEYSET.orderBy} LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }

  async findCase(tenantId: TenantId, id: string): Promise<CaseRow | null> {
    const { rows } = await sql<CaseRow>`SELECT ${CASE_COLUMNS} FROM case_library WHERE tenant_id = ${tenantId} AND id = ${id} AND retracted_at IS NULL`.execute(
      this.database.db,
    );
    return rows[0] ?? null;
  }

  /** Inserts an operator's case in one transaction with `record`, its audit entry (docs/http-edge.md "Audit log"). */
  async insertManualCase(tenantId: TenantId, c: NewManualCase, record: Recorder<CaseRow>): Promise<CaseRow> {
    return this.database.transaction(async (tx) => {
      const { rows } = await sql<CaseRow>`
        WITH c AS (INSERT INTO case_library (tenant_id, session_id, query, answer, fault_category, error_code, source_type)
                   VALUES (${tenantId}, NULL, ${c.query}, ${c.answer}, ${c.faultCategory}, ${c.errorCode}, 'MANUAL') RETURNING *)
        SELECT ${CASE_COLUMNS} FROM c`.execute(tx);
      const row = rows[0]!;
      await record(tx, row);
      return row;
    });
  }

  /** Sets the given fields of an active case; null when it is not this tenant's (or retracted). */
  async editCase(tenantId: TenantId, id: string, edit: CaseEdit, record?: Recorder<CaseRow>): Promise<CaseRow | null> {
    return this.database.recorded(async (db) => {
      const { rows } = await sql<CaseRow>`
        WITH c AS (
          UPDATE case_library
             SET query = COALESCE(${edit.query ?? null}, query),
                 answer = COALESCE(${edit.answer ?? null}, answer),
                 fault_category = COALESCE(${edit.faultCategory ?? null}, fault_category),
                 error_code = CASE WHEN ${edit.errorCode !== undefined}::boolean THEN ${edit.errorCode ?? null} ELSE error_code END,
                 updated_at = now()
           WHERE tenant_id = ${tenantId} AND id = ${id} AND retracted_at IS NULL
           RETURNING *)
        SELECT ${CASE_COLUMNS} FROM c`.execute(db);
      return rows[0] ?? null;
    }, record);
  }

  /** Retracts an active case (AUTO and MANUAL alike: kept, never answered or listed again); false when none. */
  async retractCase(tenantId: TenantId, id: string, record?: Recorder<{ id: string; query: string; sourceType: string }>): Promise<boolean> {
    const retracted = await this.database.recorded(async (db) => {
      const { rows } = await this.retractSql<{ id: string; query: string; sourceType: string }>(
        tenantId,
        sql`id = ${id}`,
        sql`id, query, source_type AS "sourceType"`,
      ).execute(db);
      return rows[0] ?? null;
    }, record);
    return retracted !== null;
  }

  /**
   * The one retract statement: marks the tenant's active cases that `which` selects retracted (kept in the table,
   * never answered or listed again; the trigger bumps the version) and returns `returning` of each.
   */
  private retractSql<Row>(tenantId: TenantId, which: RawBuilder<unknown>, returning: RawBuilder<unknown>): RawBuilder<Row> {
    return sql<Row>`UPDATE case_library SET retracted_at = now(), updated_at = now()
                     WHERE tenant_id = ${tenantId} AND ${which} AND retracted_at IS NULL
                    RETURNING ${returning}`;
  }

  /** A feedback post's read (docs/hot-paths.md "Feedback"): the id of the session's active case, or null. */
  activeSessionCaseSql(tenantId: TenantId, sessionId: string): RawBuilder<string | null> {
    return sql<string | null>`(SELECT c.id FROM case_library c WHERE c.tenant_id = ${tenantId} AND c.session_id = ${sessionId} AND c.retracted_at IS NULL)`;
  }

  /**
   * A feedback post's case change, a data-modifying CTE of the post's one statement, which fails as a whole when the
   * session's compare-and-set did not apply (docs/hot-paths.md "Feedback"). `activate` creates the session's AUTO case
   * from its question and answer, or un-retracts it (operator edits survive); `retract` hides its AUTO case.
   * Columns: `id`, `inserted` of the case it changed; no row when it changed none.
   */
  sessionCaseCte(
    tenantId: TenantId,
    sessionId: string,
    change: { action: 'activate'; query: string; answer: string | null } | { action: 'retract' },
  ): RawBuilder<SessionCaseChange> {
    switch (change.action) {
      case 'activate':
        return sql<SessionCaseChange>`INSERT INTO case_library (tenant_id, session_id, query, answer, fault_category, error_code, source_type)
                       VALUES (${tenantId}::uuid, ${sessionId}::uuid, ${change.query}, ${change.answer}, 'GENERAL', NULL, 'AUTO')
                       ON CONFLICT (tenant_id, session_id) DO UPDATE SET retracted_at = NULL, updated_at = EXCLUDED.updated_at
                       RETURNING id, (xmax = 0) AS inserted`;
      case 'retract':
        return this.retractSql<SessionCaseChange>(tenantId, sql`session_id = ${sessionId} AND source_type = 'AUTO'`, sql`id, false AS inserted`);
    }
  }
}
