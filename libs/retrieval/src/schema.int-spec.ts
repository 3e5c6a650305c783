import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { connectDataSource, createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { createHnswIndexSql } from './vector-sql.js';

describe('retrieval schema', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await connectDataSource(db.url, RETRIEVAL_ENTITIES);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.close();
  });

  it('entities match migration 0020 exactly', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('per-dimension HNSW indexes created at runtime are not drift', async () => {
    await db.pool.query(createHnswIndexSql(384));
    await db.pool.query(createHnswIndexSql(8));
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });
});
