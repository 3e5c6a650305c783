import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { createHnswIndexSql } from './vector-sql.js';

describe('retrieval schema', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    medium = await newMediumTest({ entities: RETRIEVAL_ENTITIES });
    db = medium.db;
    ds = medium.dataSource;
  });
  afterAll(() => medium?.close());

  it('entities match migration 0020 exactly', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('per-dimension HNSW indexes created at runtime are not drift', async () => {
    await db.pool.query(createHnswIndexSql(384));
    await db.pool.query(createHnswIndexSql(8));
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });
});
