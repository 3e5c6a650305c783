import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

export type LabelledSetKind = 'upload' | 'review';

/** A labelled set version (migrations/0130_decision_log.sql): an upload, or the tenant's review set. */
@Entity('labelled_set')
@Unique('uq_labelled_set_name_version', ['tenantId', 'name', 'version'])
@Check('chk_labelled_set_kind', `kind IN ('upload', 'review')`)
@Check('chk_labelled_set_version', `version >= 1`)
@Index('idx_labelled_set_tenant_created', ['tenantId', 'createdAt', 'id'])
export class LabelledSetEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_labelled_set' })
  tenantId: string;

  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_labelled_set' })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 8 })
  kind: LabelledSetKind;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
