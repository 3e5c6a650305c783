import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { INTENT_ENTITIES } from './index.js';
import { connectDataSource, createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';

describe('intent schema (drift)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await connectDataSource(db.url, INTENT_ENTITIES);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.close();
  });

  it('entities match migration 0010 exactly', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });
});
