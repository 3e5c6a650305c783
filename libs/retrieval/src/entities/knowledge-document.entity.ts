import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { KnowledgeFileEntity } from './knowledge-file.entity.js';

/** A knowledge-base document of one tenant, unique by `filePath` (upserted by it). */
@Entity('knowledge_document')
@Unique('uq_knowledge_document_path', ['tenantId', 'filePath'])
@Check('chk_knowledge_document_counts', `chunk_count >= 0 AND version >= 1`)
@Index('idx_knowledge_document_tenant_created', ['tenantId', 'createdAt', 'id'])
@Index('idx_knowledge_document_tenant_domain', ['tenantId', 'domain', 'createdAt', 'id'])
@Index('idx_knowledge_document_file', { synchronize: false })
@Index('idx_knowledge_document_metadata', { synchronize: false })
@Index('idx_knowledge_document_writing', { synchronize: false })
export class KnowledgeDocumentEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_knowledge_document' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_knowledge_document' })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  domain: string;

  @Column({ name: 'file_path', type: 'varchar', length: 1000 })
  filePath: string;

  @Column({ type: 'varchar', length: 500 })
  title: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'jsonb', default: [] })
  keywords: string[];

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @Column({ name: 'content_hash', type: 'char', length: 64 })
  contentHash: string;

  @Column({ name: 'chunk_count', type: 'integer', default: 0 })
  chunkCount: number;

  @Column({ type: 'integer', default: 1 })
  version: number;

  /** Analyzer version the lexical postings were built with (0: not indexed yet; docs/retrieval.md). */
  @Column({ name: 'lexical_version', type: 'integer', default: 0 })
  lexicalVersion: number;

  /**
   * True while a large file's document is written in groups (migration 0263, docs/hot-paths.md "A large file's
   * write in groups"): hidden from lookups and the document endpoints until its last group is in.
   */
  @Column({ type: 'boolean', default: false })
  writing: boolean;

  /** Index terms over all its chunks (its share of the tenant's length statistics). */
  @Column({ name: 'lexical_length', type: 'double precision', default: 0 })
  lexicalLength: number;

  /** The uploaded file the document was made from (docs/documents.md); null for documents posted as JSON. */
  @Column({ name: 'file_id', type: 'uuid', nullable: true })
  fileId: string | null;

  @ManyToOne(() => KnowledgeFileEntity)
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_knowledge_document_file' },
    { name: 'file_id', referencedColumnName: 'id' },
  ])
  file?: KnowledgeFileEntity;

  /** The file's sniffed media type (e.g. `application/pdf`); null for JSON documents. */
  @Column({ name: 'media_type', type: 'varchar', length: 200, nullable: true })
  mediaType: string | null;

  /** Pages of a PDF; null otherwise. */
  @Column({ name: 'page_count', type: 'integer', nullable: true })
  pageCount: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
