import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dropDatabase, http, withDatabase } from './bench-http.js';

/**
 * Settings an in-process API takes from the bench's own environment (an explicit `env` reads nothing else), so one
 * bench runs both sides of an A/B: `DB_PREPARED_STATEMENTS=false npm run bench:…` (docs/hot-paths.md "Prepared statements").
 */
export function passThroughEnv(): Record<string, string> {
  const value = process.env.DB_PREPARED_STATEMENTS;
  return value === undefined ? {} : { DB_PREPARED_STATEMENTS: value };
}

/** The admin token of the benchmarks' in-process APIs. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface InProcessApi {
  app: Awaited<ReturnType<typeof import('../../apps/api/src/create-app.js').createApp>>;
  base: string;
  dbUrl: string;
  /** One JSON request against the API. */
  call<T>(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: T }>;
  /** A tenant with its client and operator keys. */
  createTenant(name: string): Promise<{ id: string; client: Record<string, string>; operator: Record<string, string> }>;
  close(): Promise<void>;
}

/**
 * The API in this process on a fresh database (`pglite`: an embedded one in a temporary directory;
 * `postgres`: a new database on BENCH_POSTGRES_URL, dropped at the end), migrated, jobs off, no LLM, no demo.
 * Shared by the benchmarks that drive the API over HTTP from a separate load process.
 */
export async function startInProcessApi(opts: { kind: string; name: string; poolMax?: number; embeddedConnections?: number }): Promise<InProcessApi> {
  const { createApp } = await import('../../apps/api/src/create-app.js');
  const { runMigrations, startEmbeddedPostgres } = await import('@arbiter/database');
  let dbUrl: string;
  let closeDb: () => Promise<void>;
  if (opts.kind === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), `arbiter-${opts.name}-`));
    const embedded = await startEmbeddedPostgres(dir, opts.embeddedConnections ?? 16);
    dbUrl = embedded.url;
    closeDb = async () => {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const database = `arbiter_bench_${opts.name.replace(/[^a-z0-9_]/gi, '_')}_${process.pid}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${database}`);
    await c.end();
    dbUrl = withDatabase(admin, database);
    closeDb = () => dropDatabase(admin, database);
  }
  await runMigrations(dbUrl, path.resolve('migrations'));
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: dbUrl,
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      LLM_PROVIDER: 'none',
      SWAGGER_ENABLED: 'false',
      ...(opts.poolMax !== undefined ? { DB_POOL_MAX: String(opts.poolMax) } : {}),
      ...passThroughEnv(),
    },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const call = <T>(method: string, url: string, headers: Record<string, string>, body?: unknown) => http<T>(base, method, url, headers, body);
  return {
    app,
    base,
    dbUrl,
    call,
    createTenant: async (name) => {
      const res = await call<{ id: string; apiKeys: { client: string; operator: string } }>(
        'POST',
        '/admin/tenants',
        { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
        { name },
      );
      if (res.status !== 201) throw new Error(`create tenant: ${res.status}`);
      return { id: res.json.id, client: { 'x-api-key': res.json.apiKeys.client }, operator: { 'x-api-key': res.json.apiKeys.operator } };
    },
    close: async () => {
      await app.close();
      await closeDb();
    },
  };
}
