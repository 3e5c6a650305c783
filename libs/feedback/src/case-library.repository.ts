import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
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

const CASE_COLUMNS = `id, session_id AS "sessionId", query, answer, fault_category AS "faultCategory", error_code AS "errorCode",
  source_type AS "sourceType", created_at AS "createdAt", updated_at AS "updatedAt"`;
const LABEL_COLUMNS = `session_id AS "sessionId", intent, rule_id AS "ruleId", example, document_id AS "documentId", note, status,
  resolved_at AS "resolvedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Rows of `em.query`: TypeORM returns `[rows, affected]` for UPDATE/DELETE and `rows` otherwise. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** Writes an operator's change to the audit log in the change's transaction. */
export type Recorder<T> = (em: EntityManager, written: T) => Promise<void>;

/**
 * Case-library answers and bad-case labels (migrations/0150): the index snapshot and versions the chat's
 * case index is built and refreshed from, the threshold setting, case edits and retraction, labels.
 * Every method is scoped by the tenant id it takes first.
 */
@Injectable()
export class CaseLibraryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work`, and with `record` (the change's audit entry, docs/http-edge.md "Audit log") in one
   * transaction with it: `record` sees what `work` returned and is not called when it wrote nothing.
   */
  private async recorded<T>(work: (db: DataSource | EntityManager) => Promise<T>, record: Recorder<NonNullable<T>> | undefined): Promise<T> {
    if (!record) return work(this.dataSource);
    return this.dataSource.transaction(async (em) => {
      const result = await work(em);
      if (result !== null && result !== undefined && result !== false) await record(em, result);
      return result;
    });
  }

  /** The tenant's version, threshold and newest `limit` active cases, in one statement (one snapshot). */
  async indexSnapshot(tenantId: TenantId, limit: number): Promise<CaseIndexSnapshot> {
    const [row] = rowsOf<{
      version: string | null;
      threshold: number | null;
      cases: { id: string; query: string; answer: string; sourceType: CaseSourceType; updatedAt: string }[];
    }>(
      await this.dataSource.query(
        `SELECT (SELECT sum(version)::text FROM case_library_version WHERE tenant_id = $1) AS version,
                (SELECT answer_threshold FROM case_library_settings WHERE tenant_id = $1) AS threshold,
                COALESCE((SELECT json_agg(json_build_object('id', c.id, 'query', c.query, 'answer', c.answer, 'sourceType', c.source_type,
                                                           'updatedAt', c.updated_at) ORDER BY c.updated_at DESC, c.id)
                            FROM (SELECT id, query, answer, source_type, updated_at FROM case_library
                                   WHERE tenant_id = $1 AND retracted_at IS NULL
                                   ORDER BY updated_at DESC, id LIMIT $2) c), '[]'::json) AS cases`,
        [tenantId, limit],
      ),
    );
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
    const rows = rowsOf<{ tenant_id: string; version: string }>(
      await this.dataSource.query(
        'SELECT tenant_id, sum(version)::text AS version FROM case_library_version WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id',
        [tenantIds],
      ),
    );
    return new Map(rows.map((r) => [r.tenant_id, r.version]));
  }

  async settings(tenantId: TenantId): Promise<CaseLibrarySettingsRow> {
    const [row] = rowsOf<CaseLibrarySettingsRow>(
      await this.dataSource.query(
        `SELECT (SELECT answer_threshold FROM case_library_settings WHERE tenant_id = $1) AS threshold,
                COALESCE((SELECT sum(version) FROM case_library_version WHERE tenant_id = $1), 0)::text AS version,
                (SELECT updated_at FROM case_library_settings WHERE tenant_id = $1) AS "updatedAt"`,
        [tenantId],
      ),
    );
    return row;
  }

  /** Sets the threshold (null = back to the default: the row is deleted); the trigger bumps the version. */
  async setThreshold(tenantId: TenantId, threshold: number | null, record?: Recorder<true>): Promise<void> {
    await this.recorded(async (db) => {
      if (threshold === null) {
        await db.query(`DELETE FROM case_library_settings WHERE tenant_id = $1`, [tenantId]);
        return true as const;
      }
      await db.query(
        `INSERT INTO case_library_settings (tenant_id, answer_threshold) VALUES ($1, $2)
         ON CONFLICT (tenant_id) DO UPDATE SET answer_threshold = EXCLUDED.answer_threshold, updated_at = now()`,
        [tenantId, threshold],
      );
      return true as const;
    }, record);
  }

  /** Sets the given fields of an active case; null when it is not this tenant's (or retracted). */
  async editCase(tenantId: TenantId, id: string, edit: CaseEdit, record?: Recorder<CaseRow>): Promise<CaseRow | null> {
    return this.recorded(async (db) => {
      const [row] = rowsOf<CaseRow>(
        await db.query(
          `UPDATE case_library
            SET query = COALESCE($3, query),
                answer = COALESCE($4, answer),
                fault_category = COALESCE($5, fault_category),
                error_code = CASE WHEN $6::boolean THEN $7 ELSE error_code END,
                updated_at = now()
          WHERE tenant_id = $1 AND id = $2 AND retracted_at IS NULL
          RETURNING ${CASE_COLUMNS}`,
          [tenantId, id, edit.query ?? null, edit.answer ?? null, edit.faultCategory ?? null, edit.errorCode !== undefined, edit.errorCode ?? null],
        ),
      );
      return row ?? null;
    }, record);
  }

  /** Retracts an active case (AUTO and MANUAL alike: kept, never answered or listed again); false when none. */
  async retractCase(tenantId: TenantId, id: string, record?: Recorder<{ id: string; query: string; sourceType: string }>): Promise<boolean> {
    const retracted = await this.recorded(async (db) => {
      const rows = rowsOf<{ id: string; query: string; sourceType: string }>(
        await db.query(
          `UPDATE case_library SET retracted_at = now(), updated_at = now() WHERE tenant_id = $1 AND id = $2 AND retracted_at IS NULL
           RETURNING id, query, source_type AS "sourceType"`,
          [tenantId, id],
        ),
      );
      return rows[0] ?? null;
    }, record);
    return retracted !== null;
  }

  /** The question of a tenant's session, read in `em`'s transaction (the label of a bad case's audit entry). */
  async sessionQuestion(em: EntityManager, tenantId: TenantId, sessionId: string): Promise<string | null> {
    const [row] = rowsOf<{ query: string }>(await em.query(`SELECT query FROM diagnosis_session WHERE tenant_id = $1 AND id = $2`, [tenantId, sessionId]));
    return row?.query ?? null;
  }

  /** The question of a bad case (a session of the tenant whose feedback is not_useful), or null. */
  async badCaseQuestion(tenantId: TenantId, sessionId: string): Promise<BadCaseQuestion | null> {
    const [row] = rowsOf<BadCaseQuestion>(
      await this.dataSource.query(
        `SELECT s.query, s.intent FROM session_feedback f JOIN diagnosis_session s ON s.tenant_id = f.tenant_id AND s.id = f.session_id
          WHERE f.tenant_id = $1 AND f.session_id = $2 AND f.feedback = 'not_useful'`,
        [tenantId, sessionId],
      ),
    );
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
    return this.recorded(async (db) => {
      const [row] = rowsOf<BadCaseLabelRow>(
        await db.query(
          `INSERT INTO bad_case_label AS l (tenant_id, session_id, intent, document_id, note, status, resolved_at)
         SELECT f.tenant_id, f.session_id, $4::varchar, $6::uuid, $8::text, COALESCE($9::varchar, 'OPEN'), CASE WHEN $9::varchar = 'RESOLVED' THEN now() END
           FROM session_feedback f
          WHERE f.tenant_id = $1 AND f.session_id = $2 AND f.feedback = 'not_useful'
         ON CONFLICT (tenant_id, session_id) DO UPDATE
            SET intent = CASE WHEN $3::boolean THEN EXCLUDED.intent ELSE l.intent END,
                document_id = CASE WHEN $5::boolean THEN EXCLUDED.document_id ELSE l.document_id END,
                note = CASE WHEN $7::boolean THEN EXCLUDED.note ELSE l.note END,
                status = COALESCE($9::varchar, l.status),
                resolved_at = CASE WHEN $9::varchar IS NULL THEN l.resolved_at
                                   WHEN $9::varchar = 'RESOLVED' THEN COALESCE(l.resolved_at, now())
                                   ELSE NULL END,
                updated_at = now()
         RETURNING ${LABEL_COLUMNS}`,
          [
            tenantId,
            sessionId,
            patch.intent !== undefined,
            patch.intent ?? null,
            patch.documentId !== undefined,
            patch.documentId ?? null,
            patch.note !== undefined,
            patch.note ?? null,
            patch.status ?? null,
          ],
        ),
      );
      return row ?? null;
    }, record);
  }

  async upsertLabel(
    tenantId: TenantId,
    sessionId: string,
    label: { intent: string; ruleId: string | null; example: string | null },
    record?: Recorder<BadCaseLabelRow>,
  ): Promise<BadCaseLabelRow> {
    return this.recorded(async (db) => {
      const [row] = rowsOf<BadCaseLabelRow>(
        await db.query(
          `INSERT INTO bad_case_label (tenant_id, session_id, intent, rule_id, example) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant_id, session_id) DO UPDATE SET intent = EXCLUDED.intent, rule_id = EXCLUDED.rule_id, example = EXCLUDED.example, updated_at = now()
         RETURNING ${LABEL_COLUMNS}`,
          [tenantId, sessionId, label.intent, label.ruleId, label.example],
        ),
      );
      return row;
    }, record);
  }

  async labels(tenantId: TenantId, sessionIds: readonly string[]): Promise<Map<string, BadCaseLabelRow>> {
    if (sessionIds.length === 0) return new Map();
    const rows = rowsOf<BadCaseLabelRow>(
      await this.dataSource.query(`SELECT ${LABEL_COLUMNS} FROM bad_case_label WHERE tenant_id = $1 AND session_id = ANY($2::uuid[])`, [tenantId, sessionIds]),
    );
    return new Map(rows.map((r) => [r.sessionId, r]));
  }
}
