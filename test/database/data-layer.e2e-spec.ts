import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Database, sql } from '@arbiter/database';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** The typed data layer (docs/data-layer.md) on the app's own pool, on both databases. */
describe('data layer: Kysely on the app pool', () => {
  let t: TestApp;
  let database: Database;

  beforeAll(async () => {
    t = await createTestApp();
    database = t.app.get(Database);
  });
  afterAll(async () => {
    await t.close();
  });

  const tenantsNamed = async (name: string) => (await t.db.pool.query('SELECT 1 FROM tenant WHERE name = $1', [name])).rowCount;

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await database.transaction((tx) => tx.insertInto('tenant').values({ name: 'kysely-commit' }).execute());
    await expect(
      database.transaction(async (tx) => {
        await tx.insertInto('tenant').values({ name: 'kysely-rollback' }).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect([await tenantsNamed('kysely-commit'), await tenantsNamed('kysely-rollback')]).toEqual([1, 0]);
  });

  it('numbers the placeholders of composed sql fragments', async () => {
    const byName = (name: string) => sql<boolean>`name = ${name}`;
    const text = (value: string) => sql<string>`${value}::text`;
    const row = await sql<{
      n: number;
      joined: string;
    }>`SELECT count(*)::int AS n, ${text('a')} || ${text('b')} AS joined FROM tenant WHERE ${byName('kysely-commit')} OR ${byName('kysely-rollback')}`.execute(
      database.db,
    );
    expect(row.rows).toEqual([{ n: 1, joined: 'ab' }]);
  });
});
