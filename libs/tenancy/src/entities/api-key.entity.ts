import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { TenantEntity } from './tenant.entity.js';

/** `viewer`: a read-only operator, for the console (docs/http-edge.md "Keys"). */
export const API_KEY_ROLES = ['client', 'operator', 'viewer'] as const;
/** The keys a tenant gets when it is created. */
export const INITIAL_KEY_ROLES = ['client', 'operator'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

@Entity('api_key')
@Unique('uq_api_key_hash', ['keyHash'])
@Check('chk_api_key_role', `role IN ('client', 'operator', 'viewer')`)
@Check('chk_api_key_name', `char_length(btrim(name)) BETWEEN 1 AND 100`)
@Check('chk_api_key_allowed_origins', `jsonb_typeof(allowed_origins) = 'array'`)
@Index('uq_api_key_previous_hash', { synchronize: false })
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

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'allowed_origins', type: 'jsonb', default: [] })
  allowedOrigins: string[];

  @Column({ name: 'previous_key_hash', type: 'char', length: 64, nullable: true })
  previousKeyHash: string | null;

  @Column({ name: 'previous_valid_until', type: 'timestamptz', nullable: true })
  previousValidUntil: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'changed_at', type: 'timestamptz', default: () => 'now()' })
  changedAt: Date;
}
