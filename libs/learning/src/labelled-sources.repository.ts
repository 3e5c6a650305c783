import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { REVIEW_SET_NAME } from './labelled-data.js';
import type { SourcedLabel } from './labelled-snapshot.js';

/**
 * Reads the labels operators and users already gave (docs/learning.md "Labelled data"). `bad_case_label` and
 * `case_library` (feedback) and `diagnosis_session` (sessions) are read as documented read models
 * (docs/CONVENTIONS.md). Newest first, at most `limit` per source.
 */
@Injectable()
export class LabelledSourcesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Operators' labels on logged decisions (the review set). */
  review(tenantId: TenantId, limit: number): Promise<SourcedLabel[]> {
    return this.ds.query(
      `SELECT e.text, e.intent FROM labelled_example e
         JOIN labelled_set s ON s.tenant_id = e.tenant_id AND s.id = e.set_id AND s.name = '${REVIEW_SET_NAME}' AND s.kind = 'review'
        WHERE e.tenant_id = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT $2`,
      [tenantId, limit],
    );
  }

  /** The correct intent an operator set on a bad case, with the session's question; a review without an intent (only a document or a note) is no label. */
  badCases(tenantId: TenantId, limit: number): Promise<SourcedLabel[]> {
    return this.ds.query(
      `SELECT s.query AS text, l.intent FROM bad_case_label l
         JOIN diagnosis_session s ON s.tenant_id = l.tenant_id AND s.id = l.session_id
        WHERE l.tenant_id = $1 AND l.intent IS NOT NULL ORDER BY l.updated_at DESC, l.session_id DESC LIMIT $2`,
      [tenantId, limit],
    );
  }

  /**
   * Verified AUTO cases (a user found the answer useful): the question labelled with the intent its session was
   * routed to. MANUAL cases carry no routed intent and are left out.
   */
  caseLibrary(tenantId: TenantId, limit: number): Promise<SourcedLabel[]> {
    return this.ds.query(
      `SELECT c.query AS text, s.intent FROM case_library c
         JOIN diagnosis_session s ON s.tenant_id = c.tenant_id AND s.id = c.session_id
        WHERE c.tenant_id = $1 AND c.source_type = 'AUTO' AND c.retracted_at IS NULL AND s.intent IS NOT NULL
        ORDER BY c.updated_at DESC, c.id DESC LIMIT $2`,
      [tenantId, limit],
    );
  }
}
