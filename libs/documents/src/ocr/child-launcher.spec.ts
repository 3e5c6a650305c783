import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ChildLauncher } from './child-launcher.js';

// Real programs (coreutils) started by a real launcher process: what tesseract-ocr.ts relies on.
const launcher = new ChildLauncher();
const options = (signal: AbortSignal = AbortSignal.timeout(20_000)) => ({ signal, maxOutputBytes: 1024 });
const processesWith = (marker: string): string[] =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.startsWith('ps '));
const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
};

afterAll(() => launcher.close());

describe('ChildLauncher', () => {
  it('runs a program and answers its stdout; stderr only when asked', async () => {
    expect(await launcher.run('printf', ['%s|', 'a', 'b c'], options())).toBe('a|b c|');
    const script = 'echo out; echo err >&2';
    expect(await launcher.run('sh', ['-c', script], options())).toBe('out\n');
    expect((await launcher.run('sh', ['-c', script], { ...options(), withStderr: true })).split('\n').sort()).toEqual(['', 'err', 'out']);
  }, 30_000);

  it('sets extraEnv over the environment', async () => {
    expect(await launcher.run('sh', ['-c', 'printf %s "$OMP_THREAD_LIMIT"'], { ...options(), extraEnv: { OMP_THREAD_LIMIT: '1' } })).toBe('1');
  }, 30_000);

  it('rejects a non-zero exit and a missing program, naming the cause', async () => {
    await expect(launcher.run('sh', ['-c', 'exit 3'], options())).rejects.toThrow('exited with 3');
    await expect(launcher.run('/nonexistent/tesseract', [], options())).rejects.toThrow(/ENOENT/u);
    // The launcher survives both.
    expect(await launcher.run('printf', ['still here'], options())).toBe('still here');
  }, 30_000);

  it('keeps at most maxOutputBytes of the output', async () => {
    const output = await launcher.run('sh', ['-c', 'head -c 5000 /dev/zero | tr "\\0" x'], options());
    expect(output).toBe('x'.repeat(1024));
  }, 30_000);

  it('an aborted signal rejects at once and kills the program', async () => {
    const controller = new AbortController();
    const marker = `sleep 37.${process.pid}`;
    const running = launcher.run('sh', ['-c', `exec ${marker}`], options(controller.signal));
    expect(await until(() => processesWith(marker).length > 0, 10_000)).toBe(true);
    const started = performance.now();
    controller.abort(new Error('the file was stopped'));
    await expect(running).rejects.toThrow('the file was stopped');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await until(() => processesWith(marker).length === 0, 5_000)).toBe(true);
    // An already aborted signal never starts the program.
    await expect(launcher.run('printf', ['x'], options(AbortSignal.abort(new Error('already stopped'))))).rejects.toThrow('already stopped');
  }, 30_000);

  it('fails what is in flight when the launcher dies, and starts a new one for the next program', async () => {
    const own = new ChildLauncher();
    try {
      const marker = `sleep 38.${process.pid}`;
      const running = own.run('sh', ['-c', `exec ${marker}`], options());
      expect(await until(() => processesWith(marker).some((line) => line.startsWith('sleep')), 10_000)).toBe(true);
      const launcherPid = execFileSync('ps', ['-o', 'ppid=', '-p', execFileSync('pgrep', ['-f', `^${marker}$`], { encoding: 'utf8' }).trim()], {
        encoding: 'utf8',
      }).trim();
      process.kill(Number(launcherPid), 'SIGKILL');
      await expect(running).rejects.toThrow('the program launcher exited');
      expect(await own.run('printf', ['again'], options())).toBe('again');
      execFileSync('pkill', ['-KILL', '-f', `^${marker}$`]); // orphaned: its launcher was killed before it could end it
    } finally {
      own.close();
    }
  }, 30_000);

  it('close kills the programs of the launcher and fails them', async () => {
    const own = new ChildLauncher();
    const marker = `sleep 39.${process.pid}`;
    const running = own.run('sh', ['-c', `exec ${marker}`], options());
    expect(await until(() => processesWith(marker).length > 0, 10_000)).toBe(true);
    own.close();
    await expect(running).rejects.toThrow('the program launcher was closed');
    expect(await until(() => processesWith(marker).length === 0, 5_000)).toBe(true);
  }, 30_000);
});
