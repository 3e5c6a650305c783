import { Check, Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Per-tenant decision-log settings (migrations/0130_decision_log.sql); no row = the defaults. */
@Entity('decision_log_settings')
@Check('chk_decision_log_settings_retention', `retention_days >= 1 AND retention_days <= 3650`)
export class DecisionLogSettingsEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_decision_log_settings' })
  tenantId: string;

  @Column({ name: 'retention_days', type: 'integer' })
  retentionDays: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
