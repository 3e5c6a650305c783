import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { IntentFitStatus } from './intent-fit.entity.js';

/** A replay of logged decisions under a candidate (migrations/0160_intent_replay.sql, docs/learning.md). */
@Entity('intent_replay')
@Check('chk_intent_replay_status', `status IN ('queued', 'running', 'succeeded', 'failed')`)
@Index('idx_intent_replay_tenant_created', ['tenantId', 'createdAt', 'id'])
export class IntentReplayEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_intent_replay' })
  tenantId: string;

  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_intent_replay' })
  id: string;

  @Column({ type: 'varchar', length: 10, default: 'queued' })
  status: IntentFitStatus;

  @Column({ name: 'window_from', type: 'timestamptz', nullable: true })
  windowFrom: Date | null;

  @Column({ name: 'window_to', type: 'timestamptz', nullable: true })
  windowTo: Date | null;

  @Column({ name: 'decision_ids', type: 'uuid', array: true, nullable: true })
  decisionIds: string[] | null;

  @Column({ type: 'jsonb', default: {} })
  candidate: Record<string, unknown>;

  @Column({ type: 'integer' })
  decisions: number;

  @Column({ type: 'jsonb', nullable: true })
  report: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'job_run_id', type: 'uuid', nullable: true })
  jobRunId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
