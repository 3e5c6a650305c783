import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type IntentFitStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** A fit of the routing thresholds on a labelled set (migrations/0140_intent_fit.sql, docs/learning.md). */
@Entity('intent_fit')
@Check('chk_intent_fit_status', `status IN ('queued', 'running', 'succeeded', 'failed')`)
@Index('idx_intent_fit_tenant_created', ['tenantId', 'createdAt', 'id'])
export class IntentFitEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_intent_fit' })
  tenantId: string;

  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_intent_fit' })
  id: string;

  @Column({ name: 'labelled_set_id', type: 'uuid' })
  labelledSetId: string;

  @Column({ name: 'labelled_set_name', type: 'varchar', length: 100 })
  labelledSetName: string;

  @Column({ name: 'labelled_set_version', type: 'integer' })
  labelledSetVersion: number;

  @Column({ type: 'jsonb' })
  targets: Record<string, number>;

  @Column({ type: 'varchar', length: 10, default: 'queued' })
  status: IntentFitStatus;

  @Column({ name: 'config_version', type: 'bigint', nullable: true })
  configVersion: string | null;

  @Column({ type: 'jsonb', nullable: true })
  result: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'job_run_id', type: 'uuid', nullable: true })
  jobRunId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
