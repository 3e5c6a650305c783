import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { KnowledgeDocumentEntity } from './knowledge-document.entity.js';

/**
 * One embedded chunk. `embedding` is an untyped pgvector column: its space is `embeddingModel`
 * (the provider id) and `embeddingDim`; per-dimension HNSW indexes are created by VectorIndexService.
 */
@Entity('knowledge_chunk')
@Unique('uq_knowledge_chunk_position', ['tenantId', 'documentId', 'embeddingModel', 'chunkIndex'])
@Check('chk_knowledge_chunk_dim', `embedding_dim > 0 AND chunk_index >= 0`)
@Check('chk_knowledge_chunk_pages', `(page IS NULL OR page >= 1) AND (page_end IS NULL OR (page IS NOT NULL AND page_end >= page))`)
@Index('idx_knowledge_chunk_tenant_model', ['tenantId', 'embeddingModel', 'domain'])
export class KnowledgeChunkEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_knowledge_chunk' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_knowledge_chunk' })
  tenantId: string;

  @Column({ name: 'document_id', type: 'uuid' })
  documentId: string;

  @ManyToOne(() => KnowledgeDocumentEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_knowledge_chunk_document' },
    { name: 'document_id', referencedColumnName: 'id' },
  ])
  document?: KnowledgeDocumentEntity;

  @Column({ type: 'varchar', length: 100 })
  domain: string;

  @Column({ name: 'chunk_index', type: 'integer' })
  chunkIndex: number;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'vector', select: false })
  embedding: number[];

  @Column({ name: 'embedding_model', type: 'varchar', length: 200 })
  embeddingModel: string;

  @Column({ name: 'embedding_dim', type: 'integer' })
  embeddingDim: number;

  /** 1-based first page of a PDF chunk (docs/documents.md "Chunks"); null otherwise. */
  @Column({ type: 'integer', nullable: true })
  page: number | null;

  /** 1-based last page of a PDF chunk; null otherwise. */
  @Column({ name: 'page_end', type: 'integer', nullable: true })
  pageEnd: number | null;

  /** The heading path of the chunk's section, outermost first; null for chunks of JSON documents. */
  @Column({ type: 'jsonb', nullable: true })
  section: string[] | null;

  /** Set when an operator disabled the chunk: a disabled chunk is never returned by a lookup. */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
