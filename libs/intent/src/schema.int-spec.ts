import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { INTENT_ENTITIES } from './index.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';

describe('intent schema (drift)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await new DataSource({
      type: 'postgres',
      url: db.url,
      entities: INTENT_ENTITIES,
      synchronize: false,
      installExtensions: false,
      uuidExtension: 'pgcrypto',
      logging: false,
    }).initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.close();
  });

  it('entities match migration 0010 exactly', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });
});
