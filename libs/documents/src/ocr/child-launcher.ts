import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LauncherReply, LauncherRequest } from './child-launcher.protocol.js';

export interface LaunchOptions {
  signal: AbortSignal;
  /** Collect stderr too (`-v`, `--list-langs` print there). */
  withStderr?: boolean;
  /** Variables set over this process's environment for the program. */
  extraEnv?: Record<string, string>;
  maxOutputBytes: number;
}

interface Pending {
  resolve: (output: string) => void;
  reject: (error: Error) => void;
}

/**
 * Starts programs from a small helper process instead of the API's own thread (docs/documents.md "Scanned PDFs
 * (OCR)"): `spawn` forks the calling process synchronously, and the fork of the API's process (~1 GB under load)
 * held its event loop 90–134 ms per program. The launcher is forked once, on first use, and again if it dies;
 * programs in flight when it dies fail. An aborted signal kills the program (SIGKILL) and rejects at once.
 */
export class ChildLauncher {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  run(command: string, args: string[], options: LaunchOptions): Promise<string> {
    if (options.signal.aborted) return Promise.reject(abortReason(options.signal));
    const child = this.launcher();
    const id = ++this.nextId;
    return new Promise<string>((resolve, reject) => {
      const onAbort = (): void => {
        this.send(child, { type: 'kill', id });
        settle(() => reject(abortReason(options.signal)));
      };
      const settle = (then: () => void): void => {
        if (!this.pending.delete(id)) return;
        options.signal.removeEventListener('abort', onAbort);
        if (this.pending.size === 0) child.channel?.unref();
        then();
      };
      this.pending.set(id, {
        resolve: (output) => settle(() => resolve(output)),
        reject: (error) => settle(() => reject(error)),
      });
      options.signal.addEventListener('abort', onAbort, { once: true });
      child.channel?.ref();
      this.send(child, {
        type: 'run',
        id,
        command,
        args,
        env: { ...stringEnv(process.env), ...options.extraEnv },
        withStderr: options.withStderr ?? false,
        maxOutputBytes: options.maxOutputBytes,
      });
    });
  }

  /** Ends the launcher (its programs are killed as it disconnects); programs in flight fail. */
  close(): void {
    const child = this.child;
    this.child = null;
    if (child?.connected) child.disconnect();
    this.failAll('the program launcher was closed');
  }

  private launcher(): ChildProcess {
    if (this.child?.connected) return this.child;
    const child = fork(launcherEntry.file, [], { execArgv: launcherEntry.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'json' });
    child.on('message', (reply: LauncherReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      if (reply.failure !== undefined) waiting.reject(new Error(`${reply.failure}`));
      else if (reply.code === 0) waiting.resolve(reply.output);
      else waiting.reject(new Error(`exited with ${reply.code ?? 'a signal'}`));
    });
    child.on('error', () => undefined); // a failed send; the exit below fails what is in flight
    child.once('exit', () => {
      if (this.child === child) {
        this.child = null;
        this.failAll('the program launcher exited');
      }
    });
    child.unref();
    child.channel?.unref();
    this.child = child;
    return child;
  }

  private send(child: ChildProcess, request: LauncherRequest): void {
    if (child.connected) child.send(request);
  }

  private failAll(why: string): void {
    for (const waiting of [...this.pending.values()]) waiting.reject(new Error(why));
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The compiled launcher beside this file, or (tests, benchmarks: running the .ts sources) the .ts through the repo's SWC loader. */
const launcherEntry = (() => {
  const self = fileURLToPath(import.meta.url);
  const fromSources = self.endsWith('.ts');
  const file = path.join(path.dirname(self), `child-launcher.child.${fromSources ? 'ts' : 'js'}`);
  if (!fromSources) return { file, execArgv: [] as string[] };
  return { file, execArgv: ['--import', path.resolve(path.dirname(self), '../../../../bench/support/register.mjs')] };
})();
