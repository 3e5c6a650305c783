import { spawn, type ChildProcess } from 'node:child_process';
import type { LauncherReply, LauncherRequest } from './child-launcher.protocol.js';

/**
 * The launcher process (child-launcher.ts): starts the programs the API asks for and answers with their exit
 * code and output. It is small, so its fork for each program is cheap; the API's own fork would copy the page
 * tables of a process of a gigabyte and stall its event loop (docs/hot-paths.md "A large upload and the event loop").
 */
const running = new Map<number, ChildProcess>();
const send = (reply: LauncherReply): void => void process.send?.(reply);

function run(request: Extract<LauncherRequest, { type: 'run' }>): void {
  const out: Buffer[] = [];
  let size = 0;
  let settled = false;
  const finish = (code: number | null, failure?: string): void => {
    if (settled) return;
    settled = true;
    running.delete(request.id);
    send({ type: 'exited', id: request.id, code, output: Buffer.concat(out).toString('utf8'), ...(failure ? { failure } : {}) });
  };
  const collect = (chunk: Buffer): void => {
    const room = request.maxOutputBytes - size;
    if (room > 0) out.push(chunk.length <= room ? chunk : chunk.subarray(0, room));
    size += chunk.length;
  };
  const child = spawn(request.command, request.args, { stdio: ['ignore', 'pipe', 'pipe'], env: request.env });
  running.set(request.id, child);
  child.stdout.on('data', collect);
  if (request.withStderr) child.stderr.on('data', collect);
  else child.stderr.resume();
  child.once('error', (error) => finish(null, error.message));
  child.once('close', (code) => finish(code));
}

process.on('message', (request: LauncherRequest) => {
  switch (request.type) {
    case 'run':
      run(request);
      return;
    case 'kill':
      running.get(request.id)?.kill('SIGKILL');
      return;
  }
});

// The API process went away (or closed the launcher): its programs go with it.
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
