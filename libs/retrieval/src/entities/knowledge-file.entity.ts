import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** An uploaded file's original bytes (docs/documents.md "Storage"): kept in the database so replicas share it. */
@Entity('knowledge_file')
@Check('chk_knowledge_file_size', `byte_size >= 0`)
@Index('idx_knowledge_file_created', ['tenantId', 'createdAt'])
export class KnowledgeFileEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_knowledge_file' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_knowledge_file' })
  tenantId: string;

  @Column({ name: 'file_name', type: 'varchar', length: 1000 })
  fileName: string;

  /** Sniffed from the bytes, never taken from the extension. */
  @Column({ name: 'media_type', type: 'varchar', length: 200 })
  mediaType: string;

  @Column({ name: 'byte_size', type: 'bigint' })
  byteSize: string;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  /** Files stored before migration 0254; newer files keep their bytes in `knowledge_file_part` and leave this null. */
  @Column({ type: 'bytea', select: false, nullable: true })
  bytes: Buffer | null;

  /** Its bytes are being written before its upload's transaction (migration 0265); cleared when the upload commits. */
  @Column({ type: 'boolean', default: false })
  receiving: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
