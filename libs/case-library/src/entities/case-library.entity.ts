import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { CaseSourceType, FaultCategory } from '../case-library.types.js';

/** A curated question/answer case (migration 0030). AUTO cases are retracted, never deleted. */
@Entity('case_library')
@Unique('uq_case_library_session', ['tenantId', 'sessionId'])
@Check('chk_case_library_source_type', `source_type IN ('AUTO', 'MANUAL')`)
@Check(
  'chk_case_library_fault_category',
  `fault_category IN ('GENERAL', 'MECHANICAL', 'ELECTRICAL', 'SOFTWARE', 'COMMUNICATION', 'CONFIGURATION', 'OPERATION', 'SAFETY', 'OTHER')`,
)
@Check('chk_case_library_auto_session', `source_type = 'MANUAL' OR session_id IS NOT NULL`)
@Index('idx_case_library_tenant_created', ['tenantId', 'createdAt', 'id'])
export class CaseLibraryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_case_library' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_case_library' })
  tenantId: string;

  @Column({ name: 'session_id', type: 'uuid', nullable: true })
  sessionId: string | null;

  @Column({ type: 'text' })
  query: string;

  @Column({ type: 'text' })
  answer: string;

  @Column({ name: 'fault_category', type: 'varchar', length: 32, default: 'GENERAL' })
  faultCategory: FaultCategory;

  @Column({ name: 'error_code', type: 'varchar', length: 64, nullable: true })
  errorCode: string | null;

  @Column({ name: 'source_type', type: 'varchar', length: 16 })
  sourceType: CaseSourceType;

  @Column({ name: 'retracted_at', type: 'timestamptz', nullable: true })
  retractedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
