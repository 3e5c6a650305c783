import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { runSucceededSql } from '@arbiter/sessions';
import { RETRYABLE_FALLBACK_REASONS } from './rule-evaluator.js';

/** Evaluation queries over diagnosis_session.self_evaluation (scoped by tenant). */
@Injectable()
export class EvaluationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Succeeded runs whose stored self-evaluation is a rule fallback caused by a failing LLM call, oldest
   * first (a failed run keeps its rule 0: docs/spec/evaluation.md §1 assesses successful runs only).
   */
  async findRetryableFallbacks(tenantId: TenantId, limit: number, afterCreatedAt?: string): Promise<{ id: string; createdAt: string }[]> {
    const params: unknown[] = [tenantId, [...RETRYABLE_FALLBACK_REASONS], limit];
    let keyset = '';
    if (afterCreatedAt) {
      params.push(afterCreatedAt);
      keyset = `AND created_at > $4::timestamptz`;
    }
    const rows = (await this.dataSource.query(
      `SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAt"
         FROM diagnosis_session
        WHERE tenant_id = $1 AND ${runSucceededSql('diagnosis_session')}
          AND self_evaluation->>'source' = 'rule' AND self_evaluation->>'fallbackReason' = ANY($2::text[]) ${keyset}
        ORDER BY created_at, id
        LIMIT $3`,
      params,
    )) as { id: string; createdAt: string }[];
    return rows;
  }
}
