import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { BadCaseReviewStatus } from '../feedback.types.js';

/**
 * The review record of a bad case (migrations/0150_case_library_answers.sql, 0170_bad_case_review.sql): the
 * correct intent an operator put on it and the semantic example it became (accept-example), and its review
 * (correct document, note, OPEN/RESOLVED). One per bad case; no foreign key (sessions are never deleted;
 * `document_id`: see the 0170 migration).
 */
@Entity('bad_case_label')
@Check('chk_bad_case_label_status', `status IN ('OPEN', 'RESOLVED')`)
@Check('chk_bad_case_label_resolved_at', `(status = 'RESOLVED') = (resolved_at IS NOT NULL)`)
@Check('chk_bad_case_label_note_length', `char_length(note) <= 1000`)
export class BadCaseLabelEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_bad_case_label' })
  tenantId: string;

  @PrimaryColumn({ name: 'session_id', type: 'uuid', primaryKeyConstraintName: 'pk_bad_case_label' })
  sessionId: string;

  /** The correct intent; null when the review only names a document or a note. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  intent: string | null;

  /** The rule whose semantic examples received the question; null when only labelled. */
  @Column({ name: 'rule_id', type: 'uuid', nullable: true })
  ruleId: string | null;

  /** The question as it was appended to the rule's semantic examples. */
  @Column({ type: 'text', nullable: true })
  example: string | null;

  /** The correct knowledge document of the tenant (no foreign key: resolved when read; migration 0170). */
  @Column({ name: 'document_id', type: 'uuid', nullable: true })
  documentId: string | null;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Column({ type: 'varchar', length: 10, default: 'OPEN' })
  status: BadCaseReviewStatus;

  @Column({ name: 'resolved_at', type: 'timestamptz', nullable: true })
  resolvedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
