import { Check, Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * Per-tenant case-library answer settings (migrations/0150_case_library_answers.sql); no row = the default
 * threshold (`DEFAULT_CASE_ANSWER_THRESHOLD`).
 */
@Entity('case_library_settings')
@Check('chk_case_library_settings_threshold', `answer_threshold > 0 AND answer_threshold <= 1`)
export class CaseLibrarySettingsEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_case_library_settings' })
  tenantId: string;

  @Column({ name: 'answer_threshold', type: 'double precision' })
  answerThreshold: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * Slot counters whose sum per tenant is the version of what the chat's case index is built from
 * (migrations/0150): bumped by triggers on `case_library` and `case_library_settings` in the writer's
 * statement, one slot per writing backend (`pg_backend_pid() % 16`); replicas poll the sum.
 */
@Entity('case_library_version')
@Check('chk_case_library_version_slot', `slot >= 0 AND slot < 16`)
export class CaseLibraryVersionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_case_library_version' })
  tenantId: string;

  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'pk_case_library_version' })
  slot: number;

  @Column({ type: 'bigint' })
  version: string;
}
