import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { TEST_ADMIN_TOKEN } from './test-app.js';

/** A free TCP port on 127.0.0.1 (the kernel's choice, released before the child binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ApiProcess {
  process: ChildProcess;
  base: string;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout has printed a line containing `text`. */
  printed(text: string): Promise<void>;
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

export interface ApiProcessOptions {
  /** apps/api/src/main.ts (default) or apps/worker/src/main.ts. */
  script?: string;
  /** Printed once the process is up. */
  ready?: string;
  /** Over the defaults below (the database's variables among them: `DATABASE_URL` or `DATA_DIR`). */
  env: Record<string, string>;
}

/**
 * The real API (apps/api/src/main.ts, from source) or worker as an OS process of its own: what the
 * multi-process tests (shutdown, replicas sharing a database) run. Resolves once it printed `ready`.
 */
export async function startApiProcess(options: ApiProcessOptions): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', './bench/support/register.mjs', options.script ?? 'apps/api/src/main.ts'], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      DB_POOL_MAX: '4',
      DATABASE_URL: '',
      ...options.env,
    },
  });
  let out = '';
  let err = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (let i = waiters.length - 1; i >= 0; i--) if (out.includes(waiters[i]!.text)) waiters.splice(i, 1)[0]!.resolve();
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then(({ code, signal }) =>
        reject(new Error(`child exited (${code ?? signal}) before printing "${text}": ${err.slice(-3000)}${out.slice(-3000)}`)),
      );
    });
  await printed(options.ready ?? 'Arbiter is up');
  return {
    process: child,
    base: `http://127.0.0.1:${port}`,
    exited,
    printed,
    output: () => out + err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
