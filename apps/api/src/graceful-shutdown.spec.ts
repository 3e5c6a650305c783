import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { afterEach, describe, expect, it } from '@jest/globals';
import { BootSignals, EXIT_CLEAN, EXIT_FORCED, HttpDrain, installGracefulShutdown } from './graceful-shutdown.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(server: Server, headers: Record<string, string> = {}): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/x', agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('HttpDrain', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A server whose handler answers each request when the test calls the `release` it handed out. */
  async function start(): Promise<{ server: Server; drain: HttpDrain; handled: (() => void)[] }> {
    const handled: (() => void)[] = [];
    server = createServer((_req, res) => handled.push(() => res.end('done')));
    const drain = new HttpDrain(server);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { server, drain, handled };
  }

  it('lets requests in flight finish, answers new ones 503 SHUTTING_DOWN with Connection: close, and reports idle', async () => {
    const { server, drain, handled } = await start();
    const inFlight = get(server);
    while (handled.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(drain.requestsInFlight).toBe(1);

    drain.startDraining();
    let idle = false;
    const idleNow = drain.idle().then(() => (idle = true));
    const refused = await get(server, { 'x-request-id': 'req-123' });
    expect(refused.status).toBe(503);
    expect(refused.headers).toMatchObject({ connection: 'close', 'retry-after': '1', 'x-request-id': 'req-123' });
    expect(JSON.parse(refused.body)).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'SHUTTING_DOWN',
      message: expect.any(String),
      requestId: 'req-123',
    });
    expect(handled).toHaveLength(1); // the refused request never reached the handler
    expect(idle).toBe(false);

    handled[0]!();
    expect((await inFlight).body).toBe('done');
    await idleNow;
    expect(drain.requestsInFlight).toBe(0);
  });

  it('is idle at once when nothing is in flight', async () => {
    const { drain } = await start();
    drain.startDraining();
    await expect(drain.idle()).resolves.toBeUndefined();
  });
});

describe('signals during the boot', () => {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  afterEach(() => {
    // Only the listeners these tests added: the test runner's own stay.
    for (const s of signals) for (const l of process.listeners(s)) if (!before.get(s)!.includes(l)) process.off(s, l);
  });

  it('holds a signal until the boot ends, exits 1 on a second one, and lets go of the process signals', () => {
    const exits: number[] = [];
    const boot = new BootSignals((code) => exits.push(code));
    process.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([]); // held, not the default kill
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([EXIT_FORCED]);
    expect(boot.end()).toBe('SIGTERM');
    expect(process.listeners('SIGTERM')).toEqual(before.get('SIGTERM'));
  });

  it('reports no signal when none came', () => {
    expect(new BootSignals(() => undefined).end()).toBeNull();
  });

  it('a signal held during the boot shuts the booted application down at once: jobs stopped, closed, exit 0', async () => {
    const steps: string[] = [];
    const app = {
      get: () => ({ stop: async () => void steps.push('jobs stopped') }),
      close: async () => void steps.push('closed'),
    } as unknown as INestApplicationContext;
    const exited = new Promise<number>((resolve) => {
      const { shuttingDown } = installGracefulShutdown(app, { graceMs: 1000, signalDuringBoot: 'SIGTERM', exit: resolve });
      expect(shuttingDown).toBe(true);
    });
    expect(await exited).toBe(EXIT_CLEAN);
    expect(steps).toEqual(['jobs stopped', 'closed']);
  });

  it('without a boot signal nothing starts', () => {
    const app = { get: () => ({ stop: async () => undefined }), close: async () => undefined } as unknown as INestApplicationContext;
    expect(installGracefulShutdown(app, { graceMs: 1000, signalDuringBoot: null, exit: () => undefined }).shuttingDown).toBe(false);
  });
});
