import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { ApiKeyEntity, TenantEntity } from '@arbiter/tenancy';
import { ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity } from '@arbiter/sessions';
import { connectDataSource, createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
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
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('finds no drift between the foundation migrations and entities', async () => {
    const ds = await connectDataSource(db.url, FOUNDATION_ENTITIES);
    try {
      expect(await detectSchemaDrift(ds)).toEqual([]);
      await expect(assertSchemaInSync(ds)).resolves.toBeUndefined();
    } finally {
      await ds.destroy();
    }
  });

  it('names an entity column that no migration created', async () => {
    const ds = await connectDataSource(db.url, [DriftedTenantEntity]);
    try {
      const error = await assertSchemaInSync(ds).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaDriftError);
      expect((error as SchemaDriftError).message).toMatch(/ADD "plan"/);
    } finally {
      await ds.destroy();
    }
  });
});
