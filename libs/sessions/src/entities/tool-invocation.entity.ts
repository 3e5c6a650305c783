import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { DiagnosisSessionEntity } from './diagnosis-session.entity.js';

export type ToolInvocationStatus = 'SUCCESS' | 'FAILED';

/** One tool call of an agent run (knowledge lookups carry the seed-002 quality signals). */
@Entity('tool_invocation')
@Check('chk_tool_invocation_status', `status IN ('SUCCESS', 'FAILED')`)
@Index('idx_tool_invocation_session', ['sessionId', 'createdAt'])
export class ToolInvocationEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_tool_invocation' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_tool_invocation' })
  tenantId: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId: string;

  @ManyToOne(() => DiagnosisSessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_tool_invocation_session' },
    { name: 'session_id', referencedColumnName: 'id' },
  ])
  session?: DiagnosisSessionEntity;

  @Column({ name: 'tool_name', type: 'varchar', length: 64 })
  toolName: string;

  @Column({ type: 'jsonb', default: {} })
  arguments: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16, default: 'SUCCESS' })
  status: ToolInvocationStatus;

  @Column({ name: 'result_summary', type: 'text', nullable: true })
  resultSummary: string | null;

  @Column({ name: 'relevance_level', type: 'varchar', length: 20, nullable: true })
  relevanceLevel: string | null;

  @Column({ name: 'dedup_reason', type: 'varchar', length: 32, nullable: true })
  dedupReason: string | null;

  @Column({ name: 'retrieval_details', type: 'jsonb', nullable: true })
  retrievalDetails: Record<string, unknown> | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs: number | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
