import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { LabelledSetEntity } from './labelled-set.entity.js';

/** One labelled example (migrations/0130_decision_log.sql); intent null = out of scope. */
@Entity('labelled_example')
@Unique('uq_labelled_example_decision', ['tenantId', 'setId', 'decisionId'])
@Index('idx_labelled_example_set_created', ['tenantId', 'setId', 'createdAt', 'id'])
export class LabelledExampleEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_labelled_example' })
  tenantId: string;

  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_labelled_example' })
  id: string;

  @Column({ name: 'set_id', type: 'uuid' })
  setId: string;

  @ManyToOne(() => LabelledSetEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'tenant_id', referencedColumnName: 'tenantId', foreignKeyConstraintName: 'fk_labelled_example_set' },
    { name: 'set_id', referencedColumnName: 'id' },
  ])
  set?: LabelledSetEntity;

  @Column({ type: 'integer', nullable: true })
  line: number | null;

  @Column({ type: 'text' })
  text: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  intent: string | null;

  @Column({ name: 'decision_id', type: 'uuid', nullable: true })
  decisionId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
