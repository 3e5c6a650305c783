import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { ConversationEntity } from './conversation.entity.js';
import type { FeedbackValue, RunOutcome, SelfEvaluation, SessionMedia, SessionReference, SessionStatus } from '../session.types.js';

@Entity('diagnosis_session')
@Check('chk_session_status', `status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'BAD_CASE')`)
@Check('chk_session_outcome', `outcome IS NULL OR outcome IN ('SUCCESS', 'FAILED')`)
@Check('chk_session_feedback', `feedback IS NULL OR feedback IN ('useful', 'not_useful')`)
@Check('chk_session_counts', `step_count >= 0 AND tool_call_count >= 0`)
@Index('idx_session_tenant_created', ['tenantId', 'createdAt', 'id'])
@Index('idx_session_conversation', ['conversationId', 'createdAt'])
@Index('uq_session_idempotency_key', { synchronize: false })
@Index('idx_session_running', { synchronize: false })
@Index('idx_session_hooks_pending', { synchronize: false })
export class DiagnosisSessionEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_diagnosis_session' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_diagnosis_session' })
  tenantId: string;

  @Column({ name: 'conversation_id', type: 'uuid' })
  conversationId: string;

  @ManyToOne(() => ConversationEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_session_conversation' },
    { name: 'conversation_id', referencedColumnName: 'id' },
  ])
  conversation?: ConversationEntity;

  @Column({ type: 'varchar', length: 32, default: 'web' })
  channel: string;

  @Column({ name: 'user_ref', type: 'varchar', length: 200, nullable: true })
  userRef: string | null;

  @Column({ type: 'text' })
  query: string;

  @Column({ type: 'text', nullable: true })
  answer: string | null;

  @Column({ type: 'varchar', length: 16, default: 'PENDING', comment: 'PENDING|RUNNING|SUCCESS|FAILED|BAD_CASE (BAD_CASE: user marked the answer not useful)' })
  status: SessionStatus;

  @Column({
    type: 'varchar',
    length: 16,
    nullable: true,
    comment:
      'SUCCESS|FAILED: how the agent run ended, unchanged by feedback (a FAILED run marked not useful is status BAD_CASE, outcome FAILED); NULL while unfinished',
  })
  outcome: RunOutcome | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  intent: string | null;

  @Column({ name: 'step_count', type: 'integer', default: 0 })
  stepCount: number;

  @Column({ name: 'tool_call_count', type: 'integer', default: 0 })
  toolCallCount: number;

  @Column({ name: 'source_references', type: 'jsonb', default: [] })
  references: SessionReference[];

  @Column({ type: 'jsonb', default: [] })
  media: SessionMedia[];

  @Column({ name: 'knowledge_searched', type: 'boolean', default: false })
  knowledgeSearched: boolean;

  @Column({ name: 'self_evaluation', type: 'jsonb', nullable: true })
  selfEvaluation: SelfEvaluation | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  feedback: FeedbackValue | null;

  @Column({ name: 'route_trace', type: 'jsonb', nullable: true })
  routeTrace: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'latency_ms', type: 'integer', nullable: true })
  latencyMs: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @Column({
    name: 'hooks_done',
    type: 'boolean',
    default: true,
    comment: 'false until the finished-session hooks ran (sessions.repair runs them after a crash)',
  })
  hooksDone: boolean;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 200, nullable: true })
  idempotencyKey: string | null;

  @Column({ name: 'request_hash', type: 'char', length: 64, nullable: true })
  requestHash: string | null;
}
