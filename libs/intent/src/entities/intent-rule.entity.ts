import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { IntentAction } from '../routing/index.js';

/** One tenant intent rule (docs/spec/intent-routing.md Rule); several rules may share an intent. */
@Entity('intent_rule')
@Check('chk_intent_rule_action', `action IN ('knowledge', 'answer', 'transfer')`)
@Check(
  'chk_intent_rule_profile',
  `confidence_profile IN ('impact', 'dependency', 'search', 'documentation', 'complexity', 'overview', 'refactor', 'reference')`,
)
@Index('idx_intent_rule_tenant_created', ['tenantId', 'createdAt', 'id'])
export class IntentRuleEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_intent_rule' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_intent_rule' })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  intent: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  description: string | null;

  @Column({ type: 'jsonb', default: [] })
  keywords: string[];

  @Column({ type: 'jsonb', default: [] })
  patterns: string[];

  @Column({ name: 'semantic_examples', type: 'jsonb', default: [] })
  semanticExamples: string[];

  @Column({
    name: 'intent_vector',
    type: 'jsonb',
    nullable: true,
    comment: "Mode A: JSON array of numbers, dimension = the embedding provider's at save time",
  })
  intentVector: number[] | null;

  @Column({ type: 'integer', default: 0 })
  priority: number;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'text', nullable: true })
  reply: string | null;

  @Column({ type: 'varchar', length: 16, default: 'knowledge' })
  action: IntentAction;

  @Column({ name: 'confidence_profile', type: 'varchar', length: 32, default: 'search' })
  confidenceProfile: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
