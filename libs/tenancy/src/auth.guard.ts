import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RequestContextStore } from '@arbiter/common';
import { AdminToken } from './admin-token.js';
import { secretsEqual } from './api-key.util.js';
import { AUTH_REQUIREMENT, type AuthRequirement, type RequestWithPrincipal } from './auth.decorator.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { TenancyService } from './tenancy.service.js';

interface HeaderBag {
  headers: Record<string, string | string[] | undefined>;
}

function header(request: HeaderBag, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Global guard. A route without @Auth(...) is refused (fail closed) — and a test scans every
 * route so that never reaches production.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('AuthGuard');

  constructor(
    private readonly reflector: Reflector,
    private readonly tenancy: TenancyService,
    private readonly adminToken: AdminToken,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_REQUIREMENT, [context.getHandler(), context.getClass()]);
    if (!requirement) {
      this.logger.error({ msg: 'route without an auth decision refused', handler: `${context.getClass().name}.${context.getHandler().name}` });
      return false;
    }
    if (requirement === 'public') return true;
    const request = context.switchToHttp().getRequest<HeaderBag & RequestWithPrincipal>();

    if (requirement === 'admin') {
      const authorization = header(request, 'authorization');
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined;
      if (!token) throw new TenancyException(TenancyErrorCode.MissingCredentials, 'send Authorization: Bearer <ADMIN_TOKEN>');
      if (!secretsEqual(token, this.adminToken.value)) throw new TenancyException(TenancyErrorCode.InvalidAdminToken);
      request.principal = { kind: 'admin' };
      return true;
    }

    const rawKey = header(request, 'x-api-key');
    if (!rawKey) throw new TenancyException(TenancyErrorCode.MissingCredentials, 'send the X-Api-Key header');
    const key = await this.tenancy.resolveApiKey(rawKey);
    if (!key) throw new TenancyException(TenancyErrorCode.InvalidApiKey);
    if (requirement === 'operator' && key.role !== 'operator') throw new TenancyException(TenancyErrorCode.WrongRole, 'operator key required');
    request.principal = { kind: 'api-key', tenantId: key.tenantId, role: key.role, keyId: key.keyId };
    RequestContextStore.setTenant(key.tenantId);
    return true;
  }
}
