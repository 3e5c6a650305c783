/** Which database the integration and e2e suites run on: `TEST_DB=pglite` (default) or `postgres`. */
export type TestDbKind = 'pglite' | 'postgres';

export function testDbKind(): TestDbKind {
  const kind = process.env.TEST_DB ?? 'pglite';
  if (kind !== 'pglite' && kind !== 'postgres') throw new Error(`TEST_DB must be pglite or postgres, got ${kind}`);
  return kind;
}

/** Admin connection to the real PostgreSQL used when TEST_DB=postgres. */
export function postgresAdminUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
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
