import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';

export const JOB_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobRunStatus = (typeof JOB_RUN_STATUSES)[number];
export const JOB_TRIGGERS = ['manual', 'schedule', 'event'] as const;
export type JobTrigger = (typeof JOB_TRIGGERS)[number];

@Entity('job_run')
@Unique('uq_job_run_schedule_key', ['tenantId', 'scheduleKey'])
@Check('chk_job_run_status', `status IN ('queued', 'running', 'succeeded', 'failed')`)
@Check('chk_job_run_trigger', `trigger IN ('manual', 'schedule', 'event')`)
@Check('chk_job_run_total', 'total >= 0')
@Index('idx_job_run_claimable', { synchronize: false })
@Index('idx_job_run_tenant_created', ['tenantId', 'createdAt', 'id'])
export class JobRunEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_job_run' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_job_run' })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  trigger: JobTrigger;

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status: JobRunStatus;

  @Column({ type: 'jsonb', default: {} })
  payload: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  checkpoint: unknown;

  @Column({ type: 'integer', default: 0 })
  processed: number;

  @Column({ type: 'integer', default: 0 })
  failed: number;

  /** Items the run will process, when its handler reported it (never below `processed`); null otherwise. */
  @Column({ type: 'integer', nullable: true })
  total: number | null;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'max_attempts', type: 'integer', default: 3 })
  maxAttempts: number;

  @Column({ name: 'run_after', type: 'timestamptz', default: () => 'now()' })
  runAfter: Date;

  @Column({ name: 'locked_by', type: 'varchar', length: 64, nullable: true })
  lockedBy: string | null;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'schedule_key', type: 'varchar', length: 200, nullable: true })
  scheduleKey: string | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ type: 'jsonb', nullable: true })
  details: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
