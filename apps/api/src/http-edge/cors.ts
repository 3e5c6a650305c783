import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The routes a browser widget calls: chat, routing, lookup, session ingest and feedback, and /v1 (docs/http-edge.md "CORS"). */
export const CLIENT_ROUTE = /^\/(ai|api|v1)(\/|\?|$)/;

/** Request headers a widget may send; keys travel in headers, never cookies, so no credentials mode. */
export const CORS_ALLOWED_HEADERS = ['X-Api-Key', 'Authorization', 'Content-Type', 'Accept', 'Idempotency-Key', 'X-Request-Id', 'X-Conversation-Id'];
/** Response headers a widget may read. */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'X-Conversation-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy'];
/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * The CORS answer for a request: client routes allow every origin (reflected, with `Vary: Origin`) unless
 * `allowedOrigins` names some; every other route (the console and admin API are same-origin) allows none.
 */
export function corsOptionsFor(url: string, allowedOrigins: readonly string[]): FastifyCorsOptions {
  if (!CLIENT_ROUTE.test(url)) return { origin: false };
  return {
    origin: allowedOrigins.length ? [...allowedOrigins] : true,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: PREFLIGHT_MAX_AGE_S,
    strictPreflight: true,
  };
}

/**
 * CORS with @fastify/cors (docs/http-edge.md "CORS"), registered before the other hooks: a preflight (which
 * carries no key) is answered before authentication, and the CORS headers are on every answer of a client
 * route, errors included, so a widget can read a 401 or 429.
 */
export async function registerCors(fastify: FastifyInstance, allowedOrigins: readonly string[]): Promise<void> {
  await fastify.register(fastifyCors, {
    hook: 'onRequest',
    hideOptionsRoute: true,
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) =>
      callback(null, corsOptionsFor(request.url, allowedOrigins)),
  });
}
