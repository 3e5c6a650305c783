import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The correct intent an operator put on a bad case, and the semantic example it became
 * (migrations/0150_case_library_answers.sql). One per bad case; no foreign key (sessions are never deleted).
 */
@Entity('bad_case_label')
export class BadCaseLabelEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_bad_case_label' })
  tenantId: string;

  @PrimaryColumn({ name: 'session_id', type: 'uuid', primaryKeyConstraintName: 'pk_bad_case_label' })
  sessionId: string;

  @Column({ type: 'varchar', length: 100 })
  intent: string;

  /** The rule whose semantic examples received the question; null when only labelled. */
  @Column({ name: 'rule_id', type: 'uuid', nullable: true })
  ruleId: string | null;

  /** The question as it was appended to the rule's semantic examples. */
  @Column({ type: 'text', nullable: true })
  example: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
