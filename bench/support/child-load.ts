import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The flag a benchmark module is started with when it runs as its own load generator. */
export const LOAD_FLAG = '--load';

/**
 * Runs one load phase in a child process of the benchmark's own module (started with {@link LOAD_FLAG}),
 * so the load generator does not share the API's event loop: sends `args`, resolves with its result.
 */
export function runLoadInChild<A, R>(moduleUrl: string, args: A): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(moduleUrl), [LOAD_FLAG], { execArgv: ['--import', './bench/support/register.mjs'] });
    child.once('message', (message) => {
      if (message === 'ready') {
        child.send(args as object);
        child.once('message', (result) => resolve(result as R));
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited ${code}`)));
  });
}

/**
 * The entry of a benchmark module: as the child ({@link LOAD_FLAG}) it answers one `load(args)` over
 * IPC and exits; otherwise it runs `main`. A failure exits 1 with the error.
 */
export function benchEntry<A, R>(load: (args: A) => Promise<R>, main: () => Promise<void>): void {
  const fail = (error: unknown) => {
    console.error(error);
    process.exit(1);
  };
  if (!process.argv.includes(LOAD_FLAG)) {
    main().catch(fail);
    return;
  }
  process.once('message', (args: A) => {
    load(args).then((result) => process.send?.(result, () => process.exit(0)), fail);
  });
  process.send?.('ready');
}
