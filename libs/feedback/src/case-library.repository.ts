import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type Db } from '@arbiter/database';
import type { BadCaseRecord, BadCaseReviewPatch } from './bad-case-review.js';
import type { IndexedCase } from './case-matcher.js';
import type { CaseRow } from './feedback.repository.js';
import type { CaseSourceType, FaultCategory } from './feedback.types.js';

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

export interface BadCaseQuestion {
  query: string;
  intent: string | null;
}

/** The record of a bad case (bad_case_label): accept-example's label and the review. */
export type BadCaseLabelRow = BadCaseRecord;

export interface CaseEdit {
  query?: string;
  answer?: string;
  faultCategory?: FaultCategory;
  errorCode?: string | null;
}

const CASE_COLUMNS = sql`id, session_id AS "sessionId", query, answer, fault_category AS "faultCategory", error_code AS "errorCode",
  source_type AS "sourceType", created_at AS "createdAt", updated_at AS "updatedAt"`;
const LABEL_COLUMNS = sql`session_id AS "sessionId", intent, rule_id AS "ruleId", example, document_id AS "documentId", note, status,
  resolved_at AS "resolvedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Writes an operator's change to the audit log in the change's transaction. */
export type Recorder<T> = (tx: Db, written: T) => Promise<void>;

/**
 * Case-library answers and bad-case labels (migrations/0150): the index snapshot and versions the chat's
 * case index is built and refreshed from, the threshold setting, case edits and retraction, labels.
 * On the typed data layer (docs/data-layer.md). Every method is scoped by the tenant id it takes first.
 */
@Injectable()
export class CaseLibraryRepository {
  constructor(private readonly database: Database) {}

  /**
   * Runs `work`, and with `record` (the change's audit entry, docs/http-edge.md "Audit log") in one
   * transaction with it: `record` sees what `work` returned and is not called when it wrote nothing.
   */
  private async recorded<T>(work: (db: Db) => Promise<T>, record: Recorder<NonNullable<T>> | undefined): Promise<T> {
    if (!record) return work(this.database.db);
    return this.database.transaction(async (tx) => {
      const result = await work(tx);
      if (result !== null && result !== undefined && result !== false) await record(tx, result);
      return result;
    });
  }

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
    await this.recorded(async (db) => {
      if (threshold === null) {
        await db.deleteFrom('case_library_settings').where('tenant_id', '=', tenantId).execute();
        return true as const;
      }
      await db
        .insertInto('case_library_settings')
        .values({ tenant_id: tenantId, answer_threshold: threshold })
        .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ answer_threshold: (eb) => eb.ref('excluded.answer_threshold'), updated_at: sql<Date>`now()` }))
        .execute();
      return true as const;
    }, record);
  }

  /** Sets the given fields of an active case; null when it is not this tenant's (or retracted). */
  async editCase(tenantId: TenantId, id: string, edit: CaseEdit, record?: Recorder<CaseRow>): Promise<CaseRow | null> {
    return this.recorded(async (db) => {
      const { rows } = await sql<CaseRow>`
        UPDATE case_library
           SET query = COALESCE(${edit.query ?? null}, query),
               answer = COALESCE(${edit.answer ?? null}, answer),
               fault_category = COALESCE(${edit.faultCategory ?? null}, fault_category),
               error_code = CASE WHEN ${edit.errorCode !== undefined}::boolean THEN ${edit.errorCode ?? null} ELSE error_code END,
               updated_at = now()
         WHERE tenant_id = ${tenantId} AND id = ${id} AND retracted_at IS NULL
         RETURNING ${CASE_COLUMNS}`.execute(db);
      return rows[0] ?? null;
    }, record);
  }

  /** Retracts an active case (AUTO and MANUAL alike: kept, never answered or listed again); false when none. */
  async retractCase(tenantId: TenantId, id: string, record?: Recorder<{ id: string; query: string; sourceType: string }>): Promise<boolean> {
    const retracted = await this.recorded(async (db) => {
      const row = await db
        .updateTable('case_library')
        .set({ retracted_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('retracted_at', 'is', null)
        .returning(['id', 'query', 'source_type as sourceType'])
        .executeTakeFirst();
      return row ?? null;
    }, record);
    return retracted !== null;
  }

  /** The question of a tenant's session, read on `db` (the transaction of a bad case's audit entry, its label). */
  async sessionQuestion(db: Db, tenantId: TenantId, sessionId: string): Promise<string | null> {
    const row = await db.selectFrom('diagnosis_session').select('query').where('tenant_id', '=', tenantId).where('id', '=', sessionId).executeTakeFirst();
    return row?.query ?? null;
  }

  /** The question of a bad case (a session of the tenant whose feedback is not_useful), or null. */
  async badCaseQuestion(tenantId: TenantId, sessionId: string): Promise<BadCaseQuestion | null> {
    const row = await this.database.db
      .selectFrom('session_feedback as f')
      .innerJoin('diagnosis_session as s', (join) => join.onRef('s.tenant_id', '=', 'f.tenant_id').onRef('s.id', '=', 'f.session_id'))
      .select(['s.query', 's.intent'])
      .where('f.tenant_id', '=', tenantId)
      .where('f.session_id', '=', sessionId)
      .where('f.feedback', '=', 'not_useful')
      .executeTakeFirst();
    return row ?? null;
  }

  /**
   * Writes the given review fields of a bad case in one statement and returns its record; null (nothing written)
   * when the session is not a bad case of the tenant (no session, or its feedback is not not_useful).
   * Only the given fields are set (absent = kept, null = cleared): accept-example's `rule_id` and `example` are never
   * touched, as `upsertLabel` never touches these. Concurrent writers of one case serialize on the row (the
   * `ON CONFLICT … DO UPDATE` locks it and applies to the latest committed version), so none loses another's fields.
   * RESOLVED keeps the first `resolved_at` of a resolved case; OPEN clears it.
   */
  async upsertReview(tenantId: TenantId, sessionId: string, patch: BadCaseReviewPatch, record?: Recorder<BadCaseLabelRow>): Promise<BadCaseLabelRow | null> {
    const status = sql<string | null>`${patch.status ?? null}::varchar`;
    return this.recorded(async (db) => {
      const { rows } = await sql<BadCaseLabelRow>`
        INSERT INTO bad_case_label AS l (tenant_id, session_id, intent, document_id, note, status, resolved_at)
        SELECT f.tenant_id, f.session_id, ${patch.intent ?? null}::varchar, ${patch.documentId ?? null}::uuid, ${patch.note ?? null}::text,
               COALESCE(${status}, 'OPEN'), CASE WHEN ${status} = 'RESOLVED' THEN now() END
          FROM session_feedback f
         WHERE f.tenant_id = ${tenantId} AND f.session_id = ${sessionId} AND f.feedback = 'not_useful'
        ON CONFLICT (tenant_id, session_id) DO UPDATE
           SET intent = CASE WHEN ${patch.intent !== undefined}::boolean THEN EXCLUDED.intent ELSE l.intent END,
               document_id = CASE WHEN ${patch.documentId !== undefined}::boolean THEN EXCLUDED.document_id ELSE l.document_id END,
               note = CASE WHEN ${patch.note !== undefined}::boolean THEN EXCLUDED.note ELSE l.note END,
               status = COALESCE(${status}, l.status),
               resolved_at = CASE WHEN ${status} IS NULL THEN l.resolved_at
                                  WHEN ${status} = 'RESOLVED' THEN COALESCE(l.resolved_at, now())
                                  ELSE NULL END,
               updated_at = now()
        RETURNING ${LABEL_COLUMNS}`.execute(db);
      return rows[0] ?? null;
    }, record);
  }

  async upsertLabel(
    tenantId: TenantId,
    sessionId: string,
    label: { intent: string; ruleId: string | null; example: string | null },
    record?: Recorder<BadCaseLabelRow>,
  ): Promise<BadCaseLabelRow> {
    return this.recorded(async (db) => {
      const { rows } = await sql<BadCaseLabelRow>`
        INSERT INTO bad_case_label (tenant_id, session_id, intent, rule_id, example) VALUES (${tenantId}, ${sessionId}, ${label.intent}, ${label.ruleId}, ${label.example})
        ON CONFLICT (tenant_id, session_id) DO UPDATE SET intent = EXCLUDED.intent, rule_id = EXCLUDED.rule_id, example = EXCLUDED.example, updated_at = now()
        RETURNING ${LABEL_COLUMNS}`.execute(db);
      return rows[0]!;
    }, record);
  }

  async labels(tenantId: TenantId, sessionIds: readonly string[]): Promise<Map<string, BadCaseLabelRow>> {
    if (sessionIds.length === 0) return new Map();
    const { rows } =
      await sql<BadCaseLabelRow>`SELECT ${LABEL_COLUMNS} FROM bad_case_label WHERE tenant_id = ${tenantId} AND session_id = ANY(${sessionIds}::uuid[])`.execute(
        this.database.db,
      );
    return new Map(rows.map((r) => [r.sessionId, r]));
  }
}
