import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_ADMIN_TOKEN } from './in-process-api.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * One Arbiter process (an API replica: `bench/support/bench-server.ts`; the worker: `apps/worker/src/main.ts`) as a child
 * of the benchmark, production settings, no LLM, local embeddings; resolves once its stdout shows `readyText`.
 * Shared by the benchmarks that run several replicas on one database (`bench:replicas`, `bench:citus`).
 * `logFile`: where its whole output (the JSON log) goes too, e.g. to find the cause of a 500 by its request id.
 */
export function startProcess(args: string[], env: Record<string, string>, readyText: string, logFile?: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', './bench/support/register.mjs', ...args], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      LLM_PROVIDER: 'none',
      EMBEDDING_PROVIDER: 'local',
      SEED_DEMO: 'false',
      SWAGGER_ENABLED: 'false',
      DB_POOL_MAX: '20',
      JOBS_POLL_INTERVAL_MS: '200',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
  };
  child.stderr!.on('data', collect);
  if (logFile) {
    const log = createWriteStream(logFile);
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start within 180 s\n${output}`)), 180_000);
    child.stdout!.on('data', (d: Buffer) => {
      collect(d);
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}\n${output}`));
    });
  });
}

/** An API replica on `port` (jobs on, like every replica in production), migrating the database when it is the first. */
export function startReplica(databaseUrl: string, port: number, env: Record<string, string> = {}, logFile?: string): Promise<ChildProcess> {
  return startProcess(
    ['bench/support/bench-server.ts'],
    { DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', JOBS_ENABLED: 'true', LOG_LEVEL: 'warn', ...env },
    'READY',
    logFile,
  );
}

/** The job worker (`apps/worker`) on the database. */
export function startWorker(databaseUrl: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  return startProcess(['apps/worker/src/main.ts'], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...env }, 'Arbiter worker running jobs');
}

/** Stops the children (SIGTERM) and gives them two seconds to close their pools. */
export async function stopProcesses(children: ChildProcess[]): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 2000));
}
