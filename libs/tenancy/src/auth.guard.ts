import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RequestContextStore } from '@arbiter/common';
import { AUTH_OPTIONS, AUTH_REQUIREMENT, type AuthOptions, type AuthRequirement, type RequestWithPrincipal } from './auth.decorator.js';
import { acceptsBearerClientKey, RequestAuthenticator, type RequestHeaders } from './request-authenticator.js';

/**
 * Global guard. A route without @Auth(...) is refused (fail closed) — and a test scans every
 * route so that never reaches production. The authentication hook (auth.hook.ts) has normally
 * authenticated the request before its body was read; the guard checks again only where it did not run.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('AuthGuard');

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_REQUIREMENT, [context.getHandler(), context.getClass()]);
    if (!requirement) {
      this.logger.error({ msg: 'route without an auth decision refused', handler: `${context.getClass().name}.${context.getHandler().name}` });
      return false;
    }
    if (requirement === 'public') return true;
    const request = context
      .switchToHttp()
      .getRequest<{ headers: RequestHeaders; url?: string; method?: string; query?: Record<string, unknown> } & RequestWithPrincipal>();
    if (request.principal) return true;
    const route = this.reflector.getAllAndOverride<AuthOptions | undefined>(AUTH_OPTIONS, [context.getHandler(), context.getClass()]);
    request.principal = await this.authenticator.authenticate(requirement, request.headers, {
      bearerClientKey: acceptsBearerClientKey(request.url ?? ''),
      method: request.method,
      route,
      tenantIdParam: request.query?.tenantId,
    });
    if (request.principal.tenantId) RequestContextStore.setTenant(request.principal.tenantId);
    return true;
  }
}
