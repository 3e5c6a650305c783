import type { FastifyInstance } from 'fastify';
import type { BackgroundGate } from '@arbiter/database';

/**
 * Every request is foreground from its first byte until its response is closed (sent, or the client went away):
 * background turns (imports, re-embeds) wait for it, but for their share (docs/hot-paths.md "Imports: foreground
 * first").
 */
export function registerForegroundTracking(fastify: FastifyInstance, gate: BackgroundGate): void {
  fastify.addHook('onRequest', (_request, reply, done) => {
    reply.raw.once('close', gate.requestStarted());
    done();
  });
}
