import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { INTENT_LEARNING_ENTITIES } from './entities/index.js';

describe('learning schema', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    medium = await newMediumTest({ entities: INTENT_LEARNING_ENTITIES });
    ({ db, dataSource: ds } = medium);
  });
  afterAll(async () => {
    await medium?.close();
  });

  it('entities match migration 0130 exactly', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('every primary key, unique constraint and foreign key of the learning tables leads with tenant_id', async () => {
    const { rows } = await db.pool.query<{ table: string; name: string; first: string }>(
      `SELECT c.conrelid::regclass::text AS table, c.conname AS name, a.attname AS first
         FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype IN ('p', 'u', 'f') AND c.conrelid::regclass::text IN ('decision_log', 'decision_log_settings', 'labelled_set', 'labelled_example')
        ORDER BY 2`,
    );
    expect(rows.map((r) => r.name)).toEqual([
      'fk_labelled_example_set',
      'pk_decision_log',
      'pk_decision_log_settings',
      'pk_labelled_example',
      'pk_labelled_set',
      'uq_labelled_example_decision',
      'uq_labelled_set_name_version',
    ]);
    expect(rows.filter((r) => r.first !== 'tenant_id')).toEqual([]);
  });
});
