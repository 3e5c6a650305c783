import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger, type INestApplicationContext } from '@nestjs/common';
import { reasonPhrase, resolveRequestId, type ErrorBody } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';

/**
 * After the drain, closing the application (the job worker, the pool, the embedded database's flush, the listener)
 * gets this long before the process is forced out: a close that hangs must not keep a stopped instance alive.
 */
export const CLOSE_LIMIT_MS = 5000;

/** Exit codes (README "Faults and outages"): a drained, closed process exits 0; a forced exit is 1. */
export const EXIT_CLEAN = 0;
export const EXIT_FORCED = 1;

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The HTTP side of a shutdown: counts the requests in flight and, once draining, answers every new request (on a new
 * or a kept-alive connection) 503 `SHUTTING_DOWN` with `Connection: close`, in the one error shape, before Fastify
 * sees it — no hook, no key lookup, no body read, so a draining process starts no new work. The listener itself stays
 * open until the application closes: a load balancer still routing here gets a prompt answer, not a refused
 * connection.
 */
export class HttpDrain {
  private draining = false;
  private inFlight = 0;
  private readonly idleWaiters: (() => void)[] = [];

  /** Wraps the server's `request` listeners (Fastify's router): they keep receiving every request until draining. */
  constructor(server: Server) {
    const listeners = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.inFlight++;
      response.once('close', () => this.finished());
      if (this.draining) {
        refuse(request, response);
        return;
      }
      for (const listener of listeners) listener.call(server, request, response);
    });
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  startDraining(): void {
    this.draining = true;
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private finished(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function refuse(request: IncomingMessage, response: ServerResponse): void {
  const requestId = resolveRequestId(request.headers['x-request-id']);
  const body: ErrorBody = {
    statusCode: 503,
    error: reasonPhrase(503),
    message: 'The server is shutting down; retry the request (another instance will answer it)',
    code: 'SHUTTING_DOWN',
    requestId,
  };
  const text = JSON.stringify(body);
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
    'retry-after': '1',
    connection: 'close',
  });
  response.end(text);
}

export interface GracefulShutdownOptions {
  /** SHUTDOWN_GRACE_MS: how long in-flight requests and the running job get to finish or reach a checkpoint. */
  graceMs: number;
  /** The API's HTTP drain; absent in the worker (no HTTP). */
  http?: HttpDrain;
  /** Ends the process (tests replace it). */
  exit?: (code: number) => void;
  /** A signal that came while the application booted ({@link BootSignals}): the shutdown starts at once. */
  signalDuringBoot?: NodeJS.Signals | null;
}

/**
 * Holds SIGTERM and SIGINT while the process boots (migrations, the demo seed, the job worker's first claim): their
 * default action would kill it mid-write. Created first thing in `main`; once the application exists, `end()` hands
 * over to {@link installGracefulShutdown}, which then shuts the booted application down at once (drain, close,
 * exit 0) and the API never starts listening. A second signal during the boot exits 1 at once.
 */
export class BootSignals {
  private received: NodeJS.Signals | null = null;
  private readonly logger = new Logger('Shutdown');

  constructor(private readonly exit: (code: number) => void = (code) => process.exit(code)) {
    process.on('SIGTERM', this.onSignal);
    process.on('SIGINT', this.onSignal);
  }

  /** Stops holding signals; returns the one received during the boot, if any. */
  end(): NodeJS.Signals | null {
    process.off('SIGTERM', this.onSignal);
    process.off('SIGINT', this.onSignal);
    return this.received;
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.received !== null) {
      this.logger.error({ msg: 'second signal during boot: exiting now', signal, exitCode: EXIT_FORCED });
      this.exit(EXIT_FORCED);
      return;
    }
    this.received = signal;
    this.logger.log({ msg: 'signal during boot: shutting down once the boot has finished', signal });
  };
}

/**
 * SIGTERM or SIGINT (README "Faults and outages"):
 * 1. drain, for at most `graceMs`: new requests get 503 (see {@link HttpDrain}); in-flight requests finish; the job
 *    worker claims nothing more and its running handler stops at its next checkpoint, where its progress is saved and
 *    its run released (queued, no lease) so another process resumes it at once (`JobsService.stop`);
 * 2. close the application ({@link CLOSE_LIMIT_MS} at most): the pool, then the embedded database, which flushes
 *    its data directory, then the listener;
 * 3. exit 0.
 * A signal that came during the boot (`signalDuringBoot`) starts it at once; the caller then does not listen.
 * A second signal, the grace running out with a request or a handler still busy, or a close that hangs exits 1 at
 * once: like a crash, the job run keeps its lease until it expires (JOBS_LEASE_MS) and then resumes from its last
 * checkpoint.
 */
export function installGracefulShutdown(app: INestApplicationContext, options: GracefulShutdownOptions): { shuttingDown: boolean } {
  const logger = new Logger('Shutdown');
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started: number | null = null;

  const onSignal = (signal: NodeJS.Signals): void => {
    if (started !== null) {
      logger.error({ msg: 'second signal during shutdown: exiting now', signal, exitCode: EXIT_FORCED });
      exit(EXIT_FORCED);
      return;
    }
    started = performance.now();
    void shutdown(signal, started);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  if (options.signalDuringBoot) onSignal(options.signalDuringBoot);
  return { shuttingDown: started !== null };

  async function shutdown(signal: NodeJS.Signals, since: number): Promise<void> {
    const http = options.http;
    logger.log({ msg: 'shutting down: draining', signal, graceMs: options.graceMs, requestsInFlight: http?.requestsInFlight ?? 0 });
    http?.startDraining();
    const jobsStopped = app.get(JobsService, { strict: false }).stop();
    let graceTimer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      Promise.all([http?.idle(), jobsStopped]).then(() => true),
      new Promise<false>((resolve) => (graceTimer = setTimeout(() => resolve(false), options.graceMs))),
    ]);
    clearTimeout(graceTimer);
    if (!drained) {
      logger.error({
        msg: 'shutdown grace ran out: exiting with work in flight (a running job resumes from its last checkpoint once its lease expires)',
        graceMs: options.graceMs,
        requestsInFlight: http?.requestsInFlight ?? 0,
        exitCode: EXIT_FORCED,
      });
      exit(EXIT_FORCED);
      return;
    }
    const closeTimer = setTimeout(() => {
      logger.error({ msg: 'closing the application hung: exiting', closeLimitMs: CLOSE_LIMIT_MS, exitCode: EXIT_FORCED });
      exit(EXIT_FORCED);
    }, CLOSE_LIMIT_MS);
    try {
      await app.close();
    } catch (error) {
      clearTimeout(closeTimer);
      logger.error({ msg: 'closing the application failed', err: error instanceof Error ? error.message : String(error), exitCode: EXIT_FORCED });
      exit(EXIT_FORCED);
      return;
    }
    clearTimeout(closeTimer);
    logger.log({ msg: 'shut down cleanly', signal, ms: Math.round(performance.now() - since), exitCode: EXIT_CLEAN });
    exit(EXIT_CLEAN);
  }
}
