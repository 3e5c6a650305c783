import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DiagnosisSessionEntity } from '@arbiter/sessions';
import type { CoverageReasonCode, CoverageVerdict } from '../evaluator/coverage.types.js';

/** One coverage decision per (session, evaluator version); mirrors migrations/*_coverage_decision.sql. */
@Entity('coverage_decision')
@Check('chk_coverage_decision_verdict', `verdict IN ('covered', 'uncovered')`)
@Check(
  'chk_coverage_decision_reason',
  `reason_code IN ('covered_has_references', 'covered_visual_recognition', 'covered_non_knowledge_response', 'uncovered_explicit_no_answer', 'uncovered_no_references')`,
)
@Check('chk_coverage_decision_counts', `reference_count >= 0 AND top_score >= 0`)
@Index('idx_coverage_decision_report', ['tenantId', 'evaluatorVersion', 'sessionCreatedAt'])
export class CoverageDecisionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_coverage_decision' })
  tenantId: string;

  @PrimaryColumn({ name: 'session_id', type: 'uuid', primaryKeyConstraintName: 'pk_coverage_decision' })
  sessionId: string;

  @PrimaryColumn({ name: 'evaluator_version', type: 'varchar', length: 16, primaryKeyConstraintName: 'pk_coverage_decision' })
  evaluatorVersion: string;

  @ManyToOne(() => DiagnosisSessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_coverage_decision_session' },
    { name: 'session_id', referencedColumnName: 'id' },
  ])
  session?: DiagnosisSessionEntity;

  @Column({ type: 'varchar', length: 32 })
  channel: string;

  @Column({ type: 'varchar', length: 16 })
  verdict: CoverageVerdict;

  @Column({ name: 'reason_code', type: 'varchar', length: 40 })
  reasonCode: CoverageReasonCode;

  @Column({ name: 'reference_count', type: 'integer' })
  referenceCount: number;

  @Column({ name: 'top_score', type: 'double precision' })
  topScore: number;

  @Column({ name: 'gap_key', type: 'text', comment: 'normalizeGapText(query): case/width-folded, whitespace- and punctuation-free grouping key' })
  gapKey: string;

  @Column({ name: 'session_created_at', type: 'timestamptz' })
  sessionCreatedAt: Date;

  @Column({ name: 'decided_at', type: 'timestamptz', default: () => 'now()' })
  decidedAt: Date;
}
