/**
 * Which database the integration and e2e suites run on: `TEST_DB=pglite` (default), `postgres` (one real
 * PostgreSQL server) or `citus` (the coordinator of a Citus cluster, scripts/citus/cluster.sh; docs/SCALING.md
 * "Running on Citus").
 */
export type TestDbKind = 'pglite' | 'postgres' | 'citus';

export function testDbKind(): TestDbKind {
  const kind = process.env.TEST_DB ?? 'pglite';
  if (kind !== 'pglite' && kind !== 'postgres' && kind !== 'citus') throw new Error(`TEST_DB must be pglite, postgres or citus, got ${kind}`);
  return kind;
}

/** Admin connection to the real PostgreSQL used when TEST_DB=postgres. */
export function postgresAdminUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** The cluster's own database on the coordinator when TEST_DB=citus: the workers are read from its metadata. */
export function citusClusterUrl(): string {
  return process.env.CITUS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5440/arbiter';
}

/** Shards per distributed table in a test database: few, so that a test database distributes quickly. */
export function citusTestShardCount(): number {
  const raw = process.env.CITUS_TEST_SHARD_COUNT ?? '4';
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1) throw new Error(`CITUS_TEST_SHARD_COUNT must be a positive integer, got ${raw}`);
  return count;
}

export function testRunId(): string {
  const run = process.env.ARBITER_TEST_RUN;
  if (!run) throw new Error('Integration/e2e tests need the jest globalSetup: run them through `npm run test:int` / `npm run test:e2e`');
  return run;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
