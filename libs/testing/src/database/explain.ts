import pg from 'pg';
import type { TestDatabase } from './test-database.js';

export interface ExplainOptions {
  /** EXPLAIN's options, e.g. `ANALYZE, COSTS OFF, TIMING OFF`. */
  explain?: string;
  /** Planner settings for the statement (`SET LOCAL`), e.g. `enable_seqscan = off`. */
  settings?: readonly string[];
}

/**
 * The plan of a statement as text, read in a transaction that is rolled back, so that plan assertions read the same
 * on every database. On a Citus cluster the plan that matters is the worker's, so (docs/SCALING.md "Running on Citus"):
 * the settings reach the workers (`citus.propagate_set_commands`); the parameters are written into the statement as
 * literals (Citus shows "Could not get remote plan" for a parametrised single-shard statement); and shard names lose
 * their shard id (`knowledge_chunk_102090` → `knowledge_chunk`).
 */
export async function explainPlan(db: TestDatabase, statement: string, params: readonly unknown[], options: ExplainOptions = {}): Promise<string> {
  const citus = db.kind === 'citus';
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    if (citus) await client.query(`SET LOCAL citus.propagate_set_commands = 'local'`);
    for (const setting of options.settings ?? []) await client.query(`SET LOCAL ${setting}`);
    const explain = `EXPLAIN${options.explain ? ` (${options.explain})` : ''} `;
    const { rows } = citus
      ? await client.query<{ 'QUERY PLAN': string }>(explain + inlineParameters(statement, params))
      : await client.query<{ 'QUERY PLAN': string }>(explain + statement, [...params]);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    // Citus's shard ids start at 102008: a name's `_<six or more digits>` tail is a shard id, not part of the name.
    return citus ? plan.replace(/_\d{6,}\b/g, '') : plan;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/**
 * Each `$n` replaced by its value as an untyped literal (quoted, as the driver sends a parameter as text), so the server
 * resolves its type from the context as it does for the parameter. Strings, numbers and booleans only: another value
 * fails the test rather than being written differently from how the driver would send it.
 */
function inlineParameters(statement: string, params: readonly unknown[]): string {
  return statement.replace(/\$(\d+)/g, (_match, n: string) => {
    const value = params[Number(n) - 1];
    if (value === null) return 'NULL';
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return pg.escapeLiteral(String(value));
    throw new Error(`explainPlan: parameter $${n} (${typeof value}) cannot be written into the statement`);
  });
}
