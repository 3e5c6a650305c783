import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database } from '@arbiter/database';
import { REVIEW_SET_NAME } from './labelled-data.js';
import type { SourcedLabel } from './labelled-snapshot.js';

/**
 * Reads the labels operators and users already gave (docs/learning.md "Labelled data"). `bad_case_label` (feedback),
 * `case_library` (case-library) and `diagnosis_session` (sessions) are read as documented read models
 * (docs/CONVENTIONS.md). Newest first, at most `limit` per source. On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class LabelledSourcesRepository {
  constructor(private readonly database: Database) {}

  /** Operators' labels on logged decisions (the review set). */
  review(tenantId: TenantId, limit: number): Promise<SourcedLabel[]> {
    return this.database.db
      .selectFrom('labelled_example as e')
      .innerJoin('labelled_set as s', (j) =>
        j.onRef('s.tenant_id', '=', 'e.tenant_id').onRef('s.id', '=', 'e.set_id').on('s.name', '=', REVIEW_SET_NAME).on('s.kind', '=', 'review'),
      )
      .select(['e.text', 'e.intent'])
      .where('e.tenant_id', '=', tenantId)
      .orderBy('e.created_at', 'desc')
      .orderBy('e.id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The correct intent an operator set on a bad case, with the session's question; a review without an intent (only a document or a note) is no label. */
  badCases(tenantId: TenantId, limit: number): Promise<SourcedLabel[]> {
    return this.database.db
      .selectFrom('bad_case_label as l')
      .innerJoin('diagnosis_session as s', (j) => j.onRef('s.tenant_id', '=', 'l.tenant_id').onRef('s.id', '=', 'l.session_id'))
      .select(['s.query as text', 'l.intent'])
      .where('l.tenant_id', '=', tenantId)
      .where('l.intent', 'is not', null)
      .orderBy('l.updated_at', 'desc')
      .orderBy('l.session_id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * Verified AUTO cases (a user found the answer useful): the question labelled with the intent its session was
   * routed to. MANUAL cases carry no routed intent and are left out.
   */
  caseLibrary(tenantId: TenantId, limit: number): Promise<SourcedLabel[]> {
    return this.database.db
      .selectFrom('case_library as c')
      .innerJoin('diagnosis_session as s', (j) => j.onRef('s.tenant_id', '=', 'c.tenant_id').onRef('s.id', '=', 'c.session_id'))
      .select(['c.query as text', 's.intent'])
      .where('c.tenant_id', '=', tenantId)
      .where('c.source_type', '=', 'AUTO')
      .where('c.retracted_at', 'is', null)
      .where('s.intent', 'is not', null)
      .orderBy('c.updated_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(limit)
      .execute();
  }
}
