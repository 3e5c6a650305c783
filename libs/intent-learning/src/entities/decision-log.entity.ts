import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One routing decision (migrations/0130_decision_log.sql); written in batches by `DecisionLogWriter`. */
@Entity('decision_log')
@Check('chk_decision_log_source', `source IN ('route', 'chat')`)
@Index('idx_decision_log_tenant_created', ['tenantId', 'createdAt', 'id'])
export class DecisionLogEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_decision_log' })
  tenantId: string;

  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_decision_log' })
  id: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'varchar', length: 8 })
  source: 'route' | 'chat';

  @Column({ name: 'session_id', type: 'uuid', nullable: true })
  sessionId: string | null;

  @Column({ type: 'text' })
  message: string;

  @Column({ name: 'config_version', type: 'bigint' })
  configVersion: string;

  @Column({ name: 'rules_version', type: 'bigint' })
  rulesVersion: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  intent: string | null;

  @Column({ type: 'varchar', length: 32 })
  reason: string;

  @Column({ name: 'need_clarify', type: 'boolean' })
  needClarify: boolean;

  @Column({ type: 'double precision' })
  confidence: number;

  @Column({ type: 'jsonb', default: [] })
  candidates: { intent: string; confidence: number }[];

  @Column({ type: 'jsonb', default: {} })
  trace: Record<string, unknown>;

  @Column({ name: 'latency_ms', type: 'double precision' })
  latencyMs: number;
}
