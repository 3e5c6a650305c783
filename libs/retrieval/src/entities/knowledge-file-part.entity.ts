import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { KnowledgeFileEntity } from './knowledge-file.entity.js';

/** One part (at most 1 MiB, in order by `seq`) of an uploaded file's bytes (docs/documents.md "Storage", migration 0254). */
@Entity('knowledge_file_part')
@Check('chk_knowledge_file_part_seq', `seq >= 0`)
export class KnowledgeFilePartEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_knowledge_file_part' })
  tenantId: string;

  @PrimaryColumn({ name: 'file_id', type: 'uuid', primaryKeyConstraintName: 'pk_knowledge_file_part' })
  fileId: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_knowledge_file_part' })
  seq: number;

  @Column({ type: 'bytea', select: false })
  bytes: Buffer;

  @ManyToOne(() => KnowledgeFileEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_knowledge_file_part_file' },
    { name: 'file_id', referencedColumnName: 'id' },
  ])
  file?: KnowledgeFileEntity;
}
