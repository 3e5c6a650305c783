import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The flag a benchmark module is started with when it runs as its own load generator. */
export const LOAD_FLAG = '--load';

/** A load phase running in a child process: its result, and `stop()` for a load that runs until told (its `stopped` signal). */
export interface LoadInChild<R> {
  result: Promise<R>;
  stop(): void;
}

/**
 * Starts one load phase in a child process of the benchmark's own module (started with {@link LOAD_FLAG}),
 * so the load generator does not share the API's event loop: sends `args`; `result` settles with its result.
 */
export function startLoadInChild<A, R>(moduleUrl: string, args: A): LoadInChild<R> {
  const child = fork(fileURLToPath(moduleUrl), [LOAD_FLAG], { execArgv: ['--import', './bench/support/register.mjs'] });
  const result = new Promise<R>((resolve, reject) => {
    child.once('message', (message) => {
      if (message === 'ready') {
        child.send(args as object);
        child.once('message', (r) => resolve(r as R));
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited ${code}`)));
  });
  return { result, stop: () => child.connected && child.send('stop') };
}

/** {@link startLoadInChild} for a phase that ends by itself. */
export function runLoadInChild<A, R>(moduleUrl: string, args: A): Promise<R> {
  return startLoadInChild<A, R>(moduleUrl, args).result;
}

/**
 * The entry of a benchmark module: as the child ({@link LOAD_FLAG}) it answers one `load(args, stopped)` over
 * IPC and exits (`stopped` aborts when the parent calls `stop()`); otherwise it runs `main`. A failure exits 1 with the error.
 */
export function benchEntry<A, R>(load: (args: A, stopped: AbortSignal) => Promise<R>, main: () => Promise<void>): void {
  const fail = (error: unknown) => {
    console.error(error);
    process.exit(1);
  };
  if (!process.argv.includes(LOAD_FLAG)) {
    main().catch(fail);
    return;
  }
  const stopped = new AbortController();
  let args: { value: A } | undefined;
  process.on('message', (message) => {
    if (args) {
      if (message === 'stop') stopped.abort();
      return;
    }
    args = { value: message as A };
    load(args.value, stopped.signal).then((result) => process.send?.(result, () => process.exit(0)), fail);
  });
  process.send?.('ready');
}
