import { Check, Column, Entity, PrimaryColumn, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { RetrievalNormalizationConfig } from '../relevance.js';

/** Per-tenant retrieval overrides (`retrieval.normalization.*`, action-memory TTL). */
@Entity('retrieval_settings')
@Unique('uq_retrieval_settings_tenant', ['tenantId'])
@Check('chk_retrieval_settings_values', `memory_ttl_seconds >= 60 AND chunk_size >= 64 AND chunk_overlap >= 0 AND chunk_overlap < chunk_size`)
export class RetrievalSettingsEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_retrieval_settings' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_retrieval_settings' })
  tenantId: string;

  @Column({ type: 'jsonb', default: {} })
  normalization: Partial<RetrievalNormalizationConfig>;

  /** Fusion weights override (docs/retrieval.md "Fusion"). */
  @Column({ type: 'jsonb', default: {} })
  fusion: Record<string, unknown>;

  /** The tenant's fitted grade calibration, empty for the built-in one (docs/retrieval.md "Grading"). */
  @Column({ type: 'jsonb', default: {} })
  grading: Record<string, unknown>;

  /** The chat's default metadata filter of lookups (docs/retrieval.md "Metadata filters"); `{}` for none. */
  @Column({ name: 'default_filter', type: 'jsonb', default: {} })
  defaultFilter: Record<string, unknown>;

  @Column({ name: 'memory_ttl_seconds', type: 'integer', default: 86400 })
  memoryTtlSeconds: number;

  @Column({ name: 'chunk_size', type: 'integer', default: 512 })
  chunkSize: number;

  @Column({ name: 'chunk_overlap', type: 'integer', default: 64 })
  chunkOverlap: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
