/**
 * Writes libs/database/src/generated/db.ts — the Kysely table types — from the schema the SQL files in
 * migrations/ create (docs/data-layer.md): a fresh embedded database, every migration, then
 * kysely-codegen's introspection. `--verify` fails instead of writing when the file is out of date
 * (the drift test runs it). Run: `npm run db:types` after adding a migration.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations, startEmbeddedPostgres } from '@arbiter/database';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const GENERATED_TYPES = path.join(root, 'libs', 'database', 'src', 'generated', 'db.ts');

/** kysely-codegen's flags for this schema (the same in writing and verifying). */
export function codegenArgs(url: string): string[] {
  return [
    '--dialect',
    'postgres',
    '--url',
    url,
    '--out-file',
    GENERATED_TYPES,
    '--exclude-pattern',
    // Citus adds views of its own to the public schema (citus_tables, citus_schemas): not ours to type.
    '{schema_migrations,citus_*}',
    '--type-mapping',
    JSON.stringify({ vector: 'string', halfvec: 'string' }),
    '--log-level',
    'error',
  ];
}

/** Runs the codegen CLI in a child process (asynchronously: the embedded database serves it from this one). */
export function runCodegen(url: string, verify: boolean): Promise<{ status: number | null; output: string }> {
  const cli = path.join(root, 'node_modules', 'kysely-codegen', 'dist', 'cli', 'bin.js');
  const child = spawn(process.execPath, [cli, ...codegenArgs(url), ...(verify ? ['--verify'] : [])], { cwd: root });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })));
}

async function main(): Promise<void> {
  const verify = process.argv.includes('--verify');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-kysely-'));
  const embedded = await startEmbeddedPostgres(dir, 24);
  try {
    await runMigrations(embedded.url, path.join(root, 'migrations'));
    const { status, output } = await runCodegen(embedded.url, verify);
    process.stdout.write(output);
    if (status !== 0) process.exitCode = status ?? 1;
    else if (!verify) process.stdout.write(`wrote ${path.relative(root, GENERATED_TYPES)}\n`);
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
