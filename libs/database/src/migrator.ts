import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describeTarget } from './pool-options.js';

export interface MigrationFile {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Any constant works; it only has to be the same in every replica. */
const MIGRATION_LOCK_KEY = 7_260_311_001;

export function readMigrations(dir: string): MigrationFile[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const seen = new Set<string>();
  return files.map((file) => {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new Error(`Migration file name "${file}" must look like 0001_some_name.sql`);
    const [, version, name] = match as unknown as [string, string, string];
    if (seen.has(version)) throw new Error(`Two migrations share version ${version}`);
    seen.add(version);
    const sql = readFileSync(path.join(dir, file), 'utf8');
    return { version, name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending SQL migrations in version order, each in its own transaction, under an advisory
 * lock so replicas booting together migrate once. An applied file whose text changed fails the boot.
 */
export async function runMigrations(connectionString: string, dir: string, options: { connectTimeoutMs?: number } = {}): Promise<MigrationReport> {
  const migrations = readMigrations(dir);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot connect to the database at ${describeTarget(connectionString)} within ${connectTimeoutMs} ms (DB_CONNECT_TIMEOUT_MS): ${reason}`, {
      cause: error,
    });
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version varchar(4) PRIMARY KEY,
      name varchar(200) NOT NULL,
      checksum char(64) NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: string; checksum: string }>('SELECT version, checksum FROM schema_migrations');
    const applied = new Map(rows.map((r) => [r.version, r.checksum]));
    const report: MigrationReport = { applied: [], alreadyApplied: 0 };
    for (const migration of migrations) {
      const checksum = applied.get(migration.version);
      if (checksum) {
        if (checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.version}_${migration.name} was edited after it was applied; add a new migration instead`);
        }
        report.alreadyApplied++;
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          migration.checksum,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      report.applied.push(`${migration.version}_${migration.name}`);
    }
    return report;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
