import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { IntentConfigOverride } from '../routing/index.js';

/**
 * The tenant's routing config override (merged onto the defaults) and the versions replicas poll to
 * invalidate their compiled routers (bumped with every rule / config change).
 */
@Entity('intent_tenant_config')
@Unique('uq_intent_tenant_config_tenant', ['tenantId'])
export class IntentTenantConfigEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_intent_tenant_config' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_intent_tenant_config' })
  tenantId: string;

  @Column({ type: 'jsonb', default: {} })
  overrides: IntentConfigOverride;

  @Column({ name: 'rules_version', type: 'bigint', default: 0 })
  rulesVersion: string;

  @Column({ name: 'config_version', type: 'bigint', default: 0 })
  configVersion: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
