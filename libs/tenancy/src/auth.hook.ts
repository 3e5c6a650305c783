import { NotFoundException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RequestContextStore } from '@arbiter/common';
import { AUTH_OPTIONS_ROUTE_CONFIG_KEY, AUTH_ROUTE_CONFIG_KEY, type AuthOptions, type AuthRequirement, type RequestWithPrincipal } from './auth.decorator.js';
import { acceptsBearerClientKey, type RequestAuthenticator } from './request-authenticator.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';

/** Failures of credentials that were sent (a request without any is not counted, docs/http-edge.md "Rate limits"). */
const CREDENTIAL_FAILURES = new Set<string>([TenancyErrorCode.InvalidApiKey, TenancyErrorCode.ExpiredApiKey, TenancyErrorCode.InvalidAdminToken]);

/** Whether the client announced a body (its bytes may still be on the wire). */
export function announcesBody(request: Pick<FastifyRequest, 'headers'>): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/**
 * Authentication before the body is read (docs/http-edge.md "Authentication first"): an `onRequest`
 * hook checks the credentials that the route's `@Auth` asks for, from the headers alone. A request
 * that fails gets its 401/403 without a byte of its body read, and the connection is closed so the
 * rest of a large body is never drained. An unknown route answers 404 the same way.
 */
export function registerAuthenticationHook(fastify: FastifyInstance, authenticator: RequestAuthenticator, limiter: RateLimiter): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.is404) {
      if (announcesBody(request)) void reply.header('connection', 'close');
      // The message Nest's own not-found handler gives, so both paths answer alike.
      throw new NotFoundException(`Cannot ${request.method} ${request.url}`);
    }
    const config = request.routeOptions.config as { [AUTH_ROUTE_CONFIG_KEY]?: AuthRequirement; [AUTH_OPTIONS_ROUTE_CONFIG_KEY]?: AuthOptions } | undefined;
    const requirement = config?.[AUTH_ROUTE_CONFIG_KEY];
    // No decision: not a Nest route (the console's files, Swagger) or one the guard refuses anyway.
    if (requirement === undefined || requirement === 'public') return;
    let principal;
    try {
      principal = await authenticator.authenticate(requirement, request.headers, {
        bearerClientKey: acceptsBearerClientKey(request.url),
        method: request.method,
        route: config?.[AUTH_OPTIONS_ROUTE_CONFIG_KEY],
        tenantIdParam: (request.query as Record<string, unknown> | undefined)?.tenantId,
      });
    } catch (error) {
      if (announcesBody(request)) void reply.header('connection', 'close');
      // A browser must not read the answer of a key used from an origin it does not allow (docs/http-edge.md "CORS").
      if (error instanceof TenancyException && error.code === TenancyErrorCode.OriginNotAllowed) void reply.removeHeader('access-control-allow-origin');
      if (error instanceof TenancyException && CREDENTIAL_FAILURES.has(error.code)) {
        const retryAfter = limiter.noteAuthFailure(request.ip);
        if (retryAfter !== null) {
          void reply.header('retry-after', String(retryAfter));
          throw new TenancyException(TenancyErrorCode.TooManyAuthFailures);
        }
      }
      throw error;
    }
    (request as FastifyRequest & RequestWithPrincipal).principal = principal;
    if (principal.tenantId) RequestContextStore.setTenant(principal.tenantId);
    if (principal.kind !== 'api-key' || !principal.tenantId || !principal.keyId) return;
    const decision = await limiter.admit(principal.tenantId, principal.keyId, request.method, request.routeOptions.url ?? request.url);
    if (!decision) return;
    for (const [name, value] of Object.entries(decision.headers)) void reply.header(name, value);
    if (!decision.allowed) {
      if (announcesBody(request)) void reply.header('connection', 'close');
      throw new TenancyException(TenancyErrorCode.RateLimited);
    }
  });
}
