import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { RelevanceLevel } from '../relevance.js';

/** Persisted action memory (docs/spec/retrieval.md T1): one row per document returned in a session. */
@Entity('retrieval_memory')
@Unique('uq_retrieval_memory_doc', ['tenantId', 'sessionId', 'filePath', 'sectionKey'])
@Check('chk_retrieval_memory_level', `relevance_level IN ('PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE')`)
@Index('idx_retrieval_memory_expires', ['expiresAt'])
export class RetrievalMemoryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_retrieval_memory' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_retrieval_memory' })
  tenantId: string;

  @Column({ name: 'session_id', type: 'varchar', length: 200 })
  sessionId: string;

  @Column({ type: 'varchar', length: 100 })
  domain: string;

  @Column({ name: 'file_path', type: 'varchar', length: 1000 })
  filePath: string;

  /** '' for a whole document; for a section of a file, the SHA-256 of its heading path (docs/retrieval.md "Sections of files"). */
  @Column({ name: 'section_key', type: 'varchar', length: 64, default: '' })
  sectionKey: string;

  @Column({ name: 'relevance_level', type: 'varchar', length: 20 })
  relevanceLevel: RelevanceLevel;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
