import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { asTenantId, type TenantId } from '@arbiter/common';
import type { ApiKeyRole } from './api-key.entity.js';

/**
 * Who may call a route. `client` admits client and operator keys; `operator` only operator keys;
 * `admin` the platform ADMIN_TOKEN; `public` anyone. Every route must say which (fail closed).
 */
export type AuthRequirement = 'admin' | 'operator' | 'client' | 'public';
export const AUTH_REQUIREMENT = 'arbiter:auth';
export const API_KEY_SECURITY = 'api-key';
export const ADMIN_SECURITY = 'admin-token';

export function Auth(requirement: AuthRequirement): MethodDecorator & ClassDecorator {
  const decorators: (ClassDecorator | MethodDecorator)[] = [SetMetadata(AUTH_REQUIREMENT, requirement)];
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
