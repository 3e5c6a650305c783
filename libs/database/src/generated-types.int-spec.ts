import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { GENERATED_TYPES, runCodegen } from '../../../scripts/database/kysely-types.js';

/** The Kysely table types (docs/data-layer.md) are what the migrations create, on either database. */
describe('generated table types (libs/database/src/generated/db.ts)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  beforeAll(async () => {
    medium = await newMediumTest();
    db = medium.db;
  });
  afterAll(() => medium?.close());

  it('match the migrated schema (run `npm run db:types` after adding a migration)', async () => {
    // The output is in the failure message: kysely-codegen names what differs.
    expect(await runCodegen(db.url, true)).toMatchObject({ status: 0 });
  });

  it('cover every table but the migration log', () => {
    const source = readFileSync(GENERATED_TYPES, 'utf8');
    for (const table of ['tenant', 'api_key', 'knowledge_chunk', 'diagnosis_session', 'job_run']) expect(source).toContain(`  ${table}: `);
    expect(source).not.toContain('schema_migrations');
  });

  it('notice a schema the file does not describe', async () => {
    await db.pool.query('ALTER TABLE tenant ADD COLUMN drift_probe integer');
    try {
      expect((await runCodegen(db.url, true)).status).not.toBe(0);
    } finally {
      await db.pool.query('ALTER TABLE tenant DROP COLUMN drift_probe');
    }
  });
});
