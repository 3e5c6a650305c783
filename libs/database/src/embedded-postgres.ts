import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EmbeddedWorkerData, EmbeddedWorkerMessage } from './embedded-postgres.worker.js';
import { describeEmbeddedStartError } from './embedded-start-error.js';

export interface EmbeddedPostgres {
  /** `pg` connection string to the Unix socket (no TCP port is opened). */
  url: string;
  dataDir: string;
  /** `<0700 directory>/.s.PGSQL.5432`: only this OS user can connect. */
  socketPath: string;
  close(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Called once if the database thread dies without being asked to (the pool then fails every query). */
  onUnexpectedExit?: (error: Error) => void;
}

/** Postgres clients look for `<host directory>/.s.PGSQL.<port>`; the port only names the file. */
const SOCKET_FILE = '.s.PGSQL.5432';
/** sun_path is 108 bytes on Linux, 104 on macOS, including the terminating NUL. */
const MAX_SOCKET_PATH = 100;
const CLOSE_TIMEOUT_MS = 15_000;

/**
 * Real PostgreSQL (PGlite, WASM) with pgvector, persisted in `dataDir`, served to the app's `pg`
 * driver over a Unix socket, from a worker thread. PGlite runs every statement synchronously: on
 * the API's own thread a multi-second statement froze HTTP handling for every tenant, so the
 * database, its socket server and its protocol queue live in a `worker_threads` Worker (a thread,
 * not a child process: it dies with the API, so a `kill -9` can never leave an orphan holding the
 * data directory). The socket lives in a 0700 directory inside `dataDir` (PGlite has no password
 * authentication), so other local users cannot connect; there is no TCP port. One data directory
 * belongs to one process: starting on a directory whose socket still answers fails.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number, options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  dataDir = path.resolve(dataDir);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(`Could not start the embedded database in ${dataDir}: ${describeEmbeddedStartError(error)}`);
  }
  const socketDir = await prepareSocketDir(dataDir);
  const socketPath = path.join(socketDir.path, SOCKET_FILE);
  const workerData: EmbeddedWorkerData = { dataDir, socketPath, maxConnections };
  const worker = new Worker(workerEntry.url, { workerData, execArgv: workerEntry.execArgv, name: 'embedded-postgres' });

  let closing = false;
  let exited = false;
  let lastError: Error | undefined;
  const exit = new Promise<number>((resolve) => worker.once('exit', resolve));
  worker.on('error', (error) => {
    lastError = error;
  });
  void exit.then((code) => {
    exited = true;
    socketDir.remove();
    if (!closing) options.onUnexpectedExit?.(lastError ?? new Error(`The embedded database thread exited with code ${code}`));
  });

  const first = await Promise.race([
    new Promise<EmbeddedWorkerMessage>((resolve) => worker.once('message', resolve)),
    exit.then((code): EmbeddedWorkerMessage => ({ type: 'failed', message: lastError?.stack ?? `the database thread exited with code ${code}` })),
  ]);
  if (first.type !== 'ready') {
    closing = true;
    await worker.terminate();
    throw new Error(`Could not start the embedded database in ${dataDir}: ${first.type === 'failed' ? first.message : first.type}`);
  }

  let closed: Promise<void> | undefined;
  return {
    url: `postgres://postgres:postgres@${encodeURIComponent(socketDir.path)}/postgres`,
    dataDir,
    socketPath,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        if (exited) return;
        worker.postMessage({ type: 'close' });
        const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
        await exit;
        clearTimeout(timer);
      })()),
  };
}

/** The compiled worker beside this file, or (tests, benchmarks: running the .ts sources) the .ts through the repo's SWC loader. */
const workerEntry = (() => {
  const self = fileURLToPath(import.meta.url);
  const fromSources = self.endsWith('.ts');
  const url = new URL(`./embedded-postgres.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return { url, execArgv: undefined };
  const loader = path.resolve(path.dirname(self), '../../../bench/support/register.mjs');
  const registered = process.execArgv.some((arg) => arg.endsWith('bench/support/register.mjs')); // benchmarks run under it already
  return { url, execArgv: registered ? process.execArgv : [...process.execArgv, '--import', loader] };
})();

interface SocketDir {
  path: string;
  remove(): void;
}

/**
 * `<dataDir>/.socket`, mode 0700 and owned by us; a socket file left by a killed process is removed,
 * a live one means another process has the data directory. Falls back to a private temporary
 * directory (mkdtemp, 0700) when the data directory's path is too long for a socket address.
 */
async function prepareSocketDir(dataDir: string): Promise<SocketDir> {
  const preferred = path.join(dataDir, '.socket');
  if (path.join(preferred, SOCKET_FILE).length > MAX_SOCKET_PATH) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-db-'));
    return { path: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
  }
  mkdirSync(preferred, { recursive: true, mode: 0o700 });
  const stat = lstatSync(preferred);
  if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) {
    throw new Error(`${preferred} must be a directory owned by the user running Arbiter`);
  }
  chmodSync(preferred, 0o700);
  const socket = path.join(preferred, SOCKET_FILE);
  if (existsSync(socket)) {
    if (await answers(socket)) throw new Error(`The embedded database in ${dataDir} is in use by another process (one data directory belongs to one process)`);
    rmSync(socket, { force: true });
  }
  return { path: preferred, remove: () => rmSync(socket, { force: true }) };
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
