import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { ApiKeyEntity, TenantEntity } from '@arbiter/tenancy';
import { ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity } from '@arbiter/sessions';
import { connectDataSource, newMediumTest, type MediumTest } from '@arbiter/testing';
import { SchemaDriftError, assertSchemaInSync, detectSchemaDrift } from './schema-check.js';

/** The same table as the real entity plus a column no migration created. */
@Entity('tenant')
class DriftedTenantEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_tenant' })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'plan', type: 'varchar', length: 20, nullable: true })
  plan: string | null;
}

const FOUNDATION_ENTITIES = [TenantEntity, ApiKeyEntity, ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity];

describe('validate-only schema check', () => {
  let medium: MediumTest;
  beforeAll(async () => {
    medium = await newMediumTest({ entities: FOUNDATION_ENTITIES });
  });
  afterAll(() => medium?.close());

  it('finds no drift between the foundation migrations and entities', async () => {
    const ds = medium.dataSource;
    expect(await detectSchemaDrift(ds)).toEqual([]);
    await expect(assertSchemaInSync(ds)).resolves.toBeUndefined();
  });

  it('names an entity column that no migration created', async () => {
    // A second connection of its own: its entities drift from the schema on purpose.
    const ds = await connectDataSource(medium.db.url, [DriftedTenantEntity]);
    try {
      const error = await assertSchemaInSync(ds).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaDriftError);
      expect((error as SchemaDriftError).message).toMatch(/ADD "plan"/);
    } finally {
      await ds.destroy();
    }
  });
});
