import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { asTenantId, type RequestActor, type TenantId } from '@arbiter/common';
import type { ApiKeyRole } from './entities/api-key.entity.js';

/**
 * Who may call a route. `client` admits client and operator keys; `operator` only operator keys;
 * `admin` the platform ADMIN_TOKEN; `public` anyone. Every route must say which (fail closed).
 */
export type AuthRequirement = 'admin' | 'operator' | 'client' | 'public';
export const AUTH_REQUIREMENT = 'arbiter:auth';
export const AUTH_OPTIONS = 'arbiter:auth-options';
/** The key of a route's requirement in its Fastify route config, read by the authentication hook before the body. */
export const AUTH_ROUTE_CONFIG_KEY = 'arbiterAuth';
export const AUTH_OPTIONS_ROUTE_CONFIG_KEY = 'arbiterAuthOptions';

/**
 * Who else a route admits (docs/http-edge.md "Keys"):
 * - `viewer`: a viewer key may call this POST too (a read-only call the console makes, e.g. intent try-it);
 *   viewers may always call GET routes of `operator` and `client` routes.
 * - `platformAdmin`: the platform ADMIN_TOKEN may call this `operator` route for any tenant, naming it
 *   in `?tenantId=`; with `'any-tenant'` it may also leave it out, to act across tenants (the audit log).
 */
export interface AuthOptions {
  viewer?: boolean;
  platformAdmin?: boolean | 'any-tenant';
}
export const API_KEY_SECURITY = 'api-key';
export const ADMIN_SECURITY = 'admin-token';

/** Nest copies a handler's metadata under this key into the Fastify route's `config` (`request.routeOptions.config`). */
const FASTIFY_ROUTE_CONFIG_METADATA = '__fastify_route_config__';

function setRouteRequirement(handler: object, requirement: AuthRequirement, options: AuthOptions): void {
  const existing = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown> | undefined) ?? {};
  Reflect.defineMetadata(
    FASTIFY_ROUTE_CONFIG_METADATA,
    { ...existing, [AUTH_ROUTE_CONFIG_KEY]: requirement, [AUTH_OPTIONS_ROUTE_CONFIG_KEY]: options },
    handler,
  );
}

/**
 * Puts the requirement in the Fastify route config of the route (a method) or of every route of the
 * controller whose method has no `@Auth` of its own (method decorators run first), so the
 * authentication hook can act before the body is parsed (docs/http-edge.md).
 */
function RouteRequirement(requirement: AuthRequirement, options: AuthOptions): MethodDecorator & ClassDecorator {
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      setRouteRequirement(descriptor.value as object, requirement, options);
      return;
    }
    const prototype = (target as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (name === 'constructor' || typeof method !== 'function' || Reflect.hasOwnMetadata(AUTH_REQUIREMENT, method)) continue;
      setRouteRequirement(method, requirement, options);
    }
  }) as MethodDecorator & ClassDecorator;
}

export function Auth(requirement: AuthRequirement, options: AuthOptions = {}): MethodDecorator & ClassDecorator {
  const decorators: (ClassDecorator | MethodDecorator)[] = [
    SetMetadata(AUTH_REQUIREMENT, requirement),
    SetMetadata(AUTH_OPTIONS, options),
    RouteRequirement(requirement, options),
  ];
  if (options.platformAdmin) decorators.push(ApiBearerAuth(ADMIN_SECURITY));
  switch (requirement) {
    case 'admin':
      decorators.push(ApiBearerAuth(ADMIN_SECURITY), ApiUnauthorizedResponse({ description: 'Missing or wrong admin token' }));
      break;
    case 'operator':
      decorators.push(
        ApiSecurity(API_KEY_SECURITY),
        ApiUnauthorizedResponse({ description: 'Missing or invalid X-Api-Key' }),
        ApiForbiddenResponse({ description: 'The key is not an operator key' }),
      );
      break;
    case 'client':
      decorators.push(ApiSecurity(API_KEY_SECURITY), ApiUnauthorizedResponse({ description: 'Missing or invalid X-Api-Key' }));
      break;
    case 'public':
      break;
  }
  return applyDecorators(...decorators);
}

/** The authenticated principal, attached to the request by the guard. */
export interface Principal {
  kind: 'admin' | 'api-key';
  tenantId?: TenantId;
  role?: ApiKeyRole;
  keyId?: string;
  /** The key's name (who is calling, for logs and the console). */
  keyName?: string;
}

/** The principal as the audit log names it. */
export function actorOf(principal: Principal): RequestActor {
  return principal.kind === 'admin' ? { kind: 'platform_admin', name: 'platform admin' } : { kind: 'api_key', keyId: principal.keyId, name: principal.keyName };
}

export interface RequestWithPrincipal {
  principal?: Principal;
}

/** The caller's tenant (routes with `client` or `operator` auth only). */
export const CurrentTenant = createParamDecorator((_data: unknown, ctx: ExecutionContext): TenantId => {
  const request = ctx.switchToHttp().getRequest<RequestWithPrincipal>();
  const tenantId = request.principal?.tenantId;
  if (!tenantId) throw new Error('CurrentTenant used on a route without tenant authentication');
  return asTenantId(tenantId);
});
