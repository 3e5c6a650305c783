import type { TestDatabase } from './test-database.js';

/**
 * Runs a test's `CREATE TRIGGER` or `DROP TRIGGER` on a table (e.g. a trigger simulating a failing write). On a Citus
 * cluster a trigger on a distributed table needs `citus.enable_unsafe_triggers`, as the migrations' own triggers do
 * (docs/SCALING.md "Open points"): set for this statement's transaction only.
 */
export async function triggerDdl(db: TestDatabase, statement: string): Promise<void> {
  if (db.kind !== 'citus') {
    await db.pool.query(statement);
    return;
  }
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL citus.enable_unsafe_triggers = on');
    await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
