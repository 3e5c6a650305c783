import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { IntentRuleEntity } from './intent-rule.entity.js';

/**
 * Provider embeddings of one rule's `semanticExamples`, computed once at save time. `embeddingModel`
 * is the `EmbeddingProvider.id`; rows of another id are stale and re-embedded by `intent.reembed`.
 */
@Entity('intent_rule_embedding')
@Unique('uq_intent_rule_embedding_rule_model', ['tenantId', 'ruleId', 'embeddingModel'])
@Check('chk_intent_rule_embedding_shape', `embedding_dim > 0 AND example_count >= 0`)
@Index('idx_intent_rule_embedding_tenant_model', ['tenantId', 'embeddingModel'])
export class IntentRuleEmbeddingEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_intent_rule_embedding' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_intent_rule_embedding' })
  tenantId: string;

  @Column({ name: 'rule_id', type: 'uuid' })
  ruleId: string;

  @ManyToOne(() => IntentRuleEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_intent_rule_embedding_rule' },
    { name: 'rule_id', referencedColumnName: 'id' },
  ])
  rule?: IntentRuleEntity;

  @Column({ name: 'embedding_model', type: 'varchar', length: 200 })
  embeddingModel: string;

  @Column({ name: 'embedding_dim', type: 'integer' })
  embeddingDim: number;

  @Column({ name: 'example_count', type: 'integer' })
  exampleCount: number;

  @Column({ type: 'bytea', comment: 'example_count x embedding_dim float32, little-endian, in semantic_examples order' })
  vectors: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
