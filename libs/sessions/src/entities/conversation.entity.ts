import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

@Entity('conversation')
@Index('idx_conversation_tenant_activity', ['tenantId', 'lastActivityAt', 'id'])
export class ConversationEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_conversation' })
  id: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'uuid', primaryKeyConstraintName: 'pk_conversation' })
  tenantId: string;

  @Column({ type: 'varchar', length: 32, default: 'web' })
  channel: string;

  @Column({ name: 'user_ref', type: 'varchar', length: 200, nullable: true })
  userRef: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_activity_at', type: 'timestamptz', default: () => 'now()' })
  lastActivityAt: Date;
}
