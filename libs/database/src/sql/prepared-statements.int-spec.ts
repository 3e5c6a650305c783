import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@arbiter/testing';
import { PreparedStatementNamer, preparedStatementName, preparingPool } from './prepared-statements.js';

/**
 * Named prepared statements on the real databases (docs/hot-paths.md "Prepared statements"): on PostgreSQL each
 * connection prepares its own; on the embedded database every connection shares one backend, whose queue answers
 * a Parse of a name already prepared there.
 */
describe('prepared statements (integration)', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<Record<string, never>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    db = new Kysely({
      dialect: new PostgresDialect({ pool: preparingPool(pool, new PreparedStatementNamer({ minUses: 2, maxPerConnection: 50, maxCountedTexts: 100 })) }),
    });
  });
  afterAll(async () => {
    await db.destroy();
    await database.close();
  });

  const square = (n: number) => sql<{ n: number; square: number }>`SELECT ${n}::int AS n, ${n}::int * ${n}::int AS square`.execute(db);

  it('answers a repeated statement from every connection at once, each with its own parameters', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => square(i)));
    expect(results.map((r) => r.rows[0])).toEqual(Array.from({ length: 40 }, (_, i) => ({ n: i, square: i * i })));
  });

  it('ran the statement under its name, parsed once per backend', async () => {
    const text = sql`SELECT ${1}::int AS n, ${1}::int * ${1}::int AS square`.compile(db).sql;
    const name = preparedStatementName(text);
    // Read on the connections that ran it: a prepared statement belongs to its backend.
    const seen = await Promise.all(
      Array.from({ length: 4 }, () =>
        db.connection().execute((c) => sql<{ name: string }>`SELECT name FROM pg_prepared_statements WHERE name = ${name}`.execute(c)),
      ),
    );
    expect(seen.some((r) => r.rows.length === 1)).toBe(true);
  });

  it('keeps the statement working inside a transaction and after a failed one', async () => {
    await expect(
      db.transaction().execute(async (tx) => {
        await sql`SELECT ${1}::int AS n, ${1}::int * ${1}::int AS square`.execute(tx);
        await sql`SELECT 1 / ${0}::int`.execute(tx);
      }),
    ).rejects.toThrow(/division by zero/);
    expect((await square(7)).rows[0]).toEqual({ n: 7, square: 49 });
  });
});
