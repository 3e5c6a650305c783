import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
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

  it('joins a TypeORM transaction through within(): its statements commit and roll back with it', async () => {
    const dataSource = t.app.get(DataSource);
    await expect(
      dataSource.transaction(async (manager) => {
        await database.within(manager).insertInto('tenant').values({ name: 'kysely-within-rolled-back' }).execute();
        const seen = await manager.query<{ n: number }[]>("SELECT count(*)::int AS n FROM tenant WHERE name = 'kysely-within-rolled-back'");
        expect(seen[0].n).toBe(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await dataSource.transaction((manager) => database.within(manager).insertInto('tenant').values({ name: 'kysely-within-committed' }).execute());
    expect([await tenantsNamed('kysely-within-rolled-back'), await tenantsNamed('kysely-within-committed')]).toEqual([0, 1]);
  });

  it('numbers the placeholders of composed sql fragments', async () => {
    const byName = (name: string) => sql<boolean>`name = ${name}`;
    const row = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM tenant WHERE ${byName('kysely-commit')} OR ${byName('kysely-within-committed')}`.execute(database.db);
    expect(row.rows).toEqual([{ n: 2 }]);
  });
});
