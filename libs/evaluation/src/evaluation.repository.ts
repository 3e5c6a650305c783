import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql } from '@arbiter/database';
import { runSucceededSql } from '@arbiter/sessions';
import { RETRYABLE_FALLBACK_REASONS } from './rule-evaluator.js';

/** Evaluation queries over diagnosis_session.self_evaluation (scoped by tenant), on the typed data layer (docs/data-layer.md). */
@Injectable()
export class EvaluationRepository {
  constructor(private readonly database: Database) {}

  /**
   * Succeeded runs whose stored self-evaluation is a rule fallback caused by a failing LLM call, oldest
   * first (a failed run keeps its rule 0: docs/spec/evaluation.md §1 assesses successful runs only).
   */
  async findRetryableFallbacks(tenantId: TenantId, limit: number, afterCreatedAt?: string): Promise<{ id: string; createdAt: string }[]> {
    const { rows } = await sql<{ id: string; createdAt: string }>`
      SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAt"
        FROM diagnosis_session
       WHERE tenant_id = ${tenantId} AND ${runSucceededSql('diagnosis_session')}
         AND self_evaluation->>'source' = 'rule' AND self_evaluation->>'fallbackReason' = ANY(${[...RETRYABLE_FALLBACK_REASONS]}::text[])
         ${afterCreatedAt ? sql`AND created_at > ${afterCreatedAt}::timestamptz` : sql``}
       ORDER BY created_at, id
       LIMIT ${limit}`.execute(this.database.db);
    return rows;
  }
}
