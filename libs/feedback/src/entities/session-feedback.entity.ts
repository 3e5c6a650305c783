import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { DiagnosisSessionEntity, type FeedbackValue } from '@arbiter/sessions';

/** The user's verdict on one session (migration 0030). */
@Entity('session_feedback')
@Unique('uq_session_feedback_session', ['tenantId', 'sessionId'])
@Check('chk_session_feedback_value', `feedback IN ('useful', 'not_useful')`)
@Check('chk_session_feedback_status_before', `status_before IN ('SUCCESS', 'FAILED')`)
@Index('idx_session_feedback_tenant_value_updated', ['tenantId', 'feedback', 'updatedAt', 'id'])
export class SessionFeedbackEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_session_feedback' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_session_feedback' })
  tenantId: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId: string;

  @ManyToOne(() => DiagnosisSessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_session_feedback_session' },
    { name: 'session_id', referencedColumnName: 'id' },
  ])
  session?: DiagnosisSessionEntity;

  @Column({ type: 'varchar', length: 16 })
  feedback: FeedbackValue;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  comment: string | null;

  /** The session status before feedback set BAD_CASE (restored by not_useful → useful). */
  @Column({ name: 'status_before', type: 'varchar', length: 16 })
  statusBefore: 'SUCCESS' | 'FAILED';

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
