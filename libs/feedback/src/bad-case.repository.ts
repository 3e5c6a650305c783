import { Injectable } from '@nestjs/common';
import type { KeysetCursor, KeysetRow, TenantId } from '@arbiter/common';
import { Database, sql, typedKeyset, type Db, type RawBuilder, type Recorder } from '@arbiter/database';
import { FAILURE_FACT_COLUMNS, failureFactsSql, type FailureFactsRow, type SelfEvaluation } from '@arbiter/sessions';
import type { BadCaseRecord, BadCaseReviewPatch } from './bad-case-review.js';
import type { BadCaseReviewStatus } from './feedback.types.js';

export interface BadCaseQuestion {
  query: string;
  intent: string | null;
}

/** The record of a bad case (bad_case_label): accept-example's label and the review. */
export type BadCaseLabelRow = BadCaseRecord;

/** A bad case; its keyset key is (session_feedback.updated_at, id) at microsecond precision. */
export interface BadCaseRow extends KeysetRow, FailureFactsRow {
  feedbackId: string;
  sessionId: string;
  conversationId: string;
  channel: string;
  query: string;
  answer: string | null;
  comment: string | null;
  intent: string | null;
  selfEvaluation: SelfEvaluation | null;
  routeTrace: Record<string, unknown> | null;
  sessionCreatedAt: Date;
  markedAt: Date;
}

/**
 * The failure facts of a bad case's session `s` (docs/learning.md "Failure attribution"; read models in
 * docs/CONVENTIONS.md: `diagnosis_session`, `tool_invocation`, `coverage_decision`), with the decision of the coverage
 * evaluator version that counts; `bad_case_label` is this lib's own table.
 */
function badCaseFactsSql(evaluatorVersion: string): RawBuilder<FailureFactsRow> {
  return failureFactsSql('s', {
    coverageReason: sql<
      string | null
    >`(SELECT d.reason_code FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id AND d.evaluator_version = ${evaluatorVersion})`,
    labelIntent: sql<string | null>`(SELECT l.intent FROM bad_case_label l WHERE l.tenant_id = s.tenant_id AND l.session_id = s.id)`,
  });
}

export interface BadCaseFactsGroup extends FailureFactsRow {
  count: number;
}

/** Keyset keys keep microseconds (a JS Date would drop them and skip rows between pages). */
const BAD_CASE_KEYSET = typedKeyset('f.updated_at', 'f.id');
/** The columns of a listed bad case over `session_feedback f` and `diagnosis_session s`. */
function badCaseColumns(evaluatorVersion: string): RawBuilder<BadCaseRow> {
  return sql<BadCaseRow>`f.id AS "feedbackId", s.id AS "sessionId", s.conversation_id AS "conversationId", s.channel, s.query, s.answer, f.comment,
                s.intent, s.self_evaluation AS "selfEvaluation", s.route_trace AS "routeTrace", s.created_at AS "sessionCreatedAt",
                f.updated_at AS "markedAt", ${sql.join(BAD_CASE_KEYSET.cursor)}, ${badCaseFactsSql(evaluatorVersion)}`;
}

const LABEL_COLUMNS = sql`session_id AS "sessionId", intent, rule_id AS "ruleId", example, document_id AS "documentId", note, status,
  resolved_at AS "resolvedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Bad cases (sessions marked not_useful) and their review records (`bad_case_label`, migrations 0150, 0170): the review
 * queue with each case's failure facts, the facts report, the accept-example label and the review. On the typed data
 * layer (docs/data-layer.md). Every method is scoped by the tenant id it takes first.
 */
@Injectable()
export class BadCaseRepository {
  constructor(private readonly database: Database) {}

  /**
   * Sessions marked not_useful, newest verdict first, with their failure facts (coverage decision of `evaluatorVersion`);
   * with `status`, only those whose review has it (a case without a review record is OPEN).
   */
  async listBadCases(tenantId: TenantId, limit: number, evaluatorVersion: string, after?: KeysetCursor, status?: BadCaseReviewStatus): Promise<BadCaseRow[]> {
    const byStatus =
      status === undefined
        ? sql``
        : sql`AND COALESCE((SELECT l.status FROM bad_case_label l WHERE l.tenant_id = f.tenant_id AND l.session_id = f.session_id), 'OPEN') = ${status}`;
    const { rows } = await sql<BadCaseRow>`
      SELECT ${badCaseColumns(evaluatorVersion)}
        FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
       WHERE f.tenant_id = ${tenantId} AND f.feedback = 'not_useful' ${byStatus} AND ${BAD_CASE_KEYSET.after(after ?? null)}
       ORDER BY ${BAD_CASE_KEYSET.orderBy}
       LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }

  /** One bad case of the tenant (a session marked not_useful), as listed; null when it is none. */
  async findBadCase(tenantId: TenantId, sessionId: string, evaluatorVersion: string): Promise<BadCaseRow | null> {
    const { rows } = await sql<BadCaseRow>`
      SELECT ${badCaseColumns(evaluatorVersion)}
        FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
       WHERE f.tenant_id = ${tenantId} AND f.session_id = ${sessionId} AND f.feedback = 'not_useful'`.execute(this.database.db);
    return rows[0] ?? null;
  }

  /**
   * Failure facts of the bad cases marked in [fromTs, toTs) (`session_feedback.updated_at`; open ends allowed),
   * grouped on every fact column: Node receives one row per distinct combination. Reads the bad cases through
   * `idx_session_feedback_tenant_value_updated`, so its cost follows the bad cases of the window.
   */
  async badCaseFacts(tenantId: TenantId, evaluatorVersion: string, fromTs: string | null, toTs: string | null): Promise<BadCaseFactsGroup[]> {
    const { rows } = await sql<BadCaseFactsGroup>`
      SELECT ${badCaseFactsSql(evaluatorVersion)}, count(*)::int AS count
        FROM session_feedback f JOIN diagnosis_session s ON s.id = f.session_id AND s.tenant_id = f.tenant_id
       WHERE f.tenant_id = ${tenantId} AND f.feedback = 'not_useful'
         AND (${fromTs}::timestamptz IS NULL OR f.updated_at >= ${fromTs}::timestamptz) AND (${toTs}::timestamptz IS NULL OR f.updated_at < ${toTs}::timestamptz)
       GROUP BY ${sql.raw(FAILURE_FACT_COLUMNS.map((_c, i) => String(i + 1)).join(', '))}`.execute(this.database.db);
    return rows;
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
    return this.database.recorded(async (db) => {
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
               -- EXCLUDED.resolved_at is the insert's now() when RESOLVED: no now() in DO UPDATE (Citus, docs/SCALING.md "Running on Citus").
               resolved_at = CASE WHEN ${status} IS NULL THEN l.resolved_at
                                  WHEN ${status} = 'RESOLVED' THEN COALESCE(l.resolved_at, EXCLUDED.resolved_at)
                                  ELSE NULL END,
               updated_at = EXCLUDED.updated_at
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
    return this.database.recorded(async (db) => {
      const { rows } = await sql<BadCaseLabelRow>`
        INSERT INTO bad_case_label (tenant_id, session_id, intent, rule_id, example) VALUES (${tenantId}, ${sessionId}, ${label.intent}, ${label.ruleId}, ${label.example})
        ON CONFLICT (tenant_id, session_id) DO UPDATE SET intent = EXCLUDED.intent, rule_id = EXCLUDED.rule_id, example = EXCLUDED.example, updated_at = EXCLUDED.updated_at
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
