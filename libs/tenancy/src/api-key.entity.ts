import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { TenantEntity } from './tenant.entity.js';

export const API_KEY_ROLES = ['client', 'operator'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

@Entity('api_key')
@Unique('uq_api_key_hash', ['keyHash'])
@Check('chk_api_key_role', `role IN ('client', 'operator')`)
@Index('idx_api_key_tenant', ['tenantId'])
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_api_key' })
  id: string;

  @Column({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_api_key_tenant' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 16 })
  role: ApiKeyRole;

  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
