import { Injectable } from '@nestjs/common';
import { AdminToken } from './admin-token.js';
import { secretsEqual } from './api-key.util.js';
import type { AuthRequirement, Principal } from './auth.decorator.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { TenancyService } from './tenancy.service.js';

export type RequestHeaders = Record<string, string | string[] | undefined>;

function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a request's credentials against its route's requirement from the headers alone, so it can run
 * before the body is read (docs/http-edge.md "Authentication first"). Throws 401/403 as TenancyException.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly adminToken: AdminToken,
  ) {}

  async authenticate(requirement: Exclude<AuthRequirement, 'public'>, headers: RequestHeaders): Promise<Principal> {
    if (requirement === 'admin') {
      const authorization = header(headers, 'authorization');
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined;
      if (!token) throw new TenancyException(TenancyErrorCode.MissingCredentials, 'send Authorization: Bearer <ADMIN_TOKEN>');
      if (!secretsEqual(token, this.adminToken.value)) throw new TenancyException(TenancyErrorCode.InvalidAdminToken);
      return { kind: 'admin' };
    }
    const rawKey = header(headers, 'x-api-key');
    if (!rawKey) throw new TenancyException(TenancyErrorCode.MissingCredentials, 'send the X-Api-Key header');
    const key = await this.tenancy.resolveApiKey(rawKey);
    if (!key) throw new TenancyException(TenancyErrorCode.InvalidApiKey);
    if (requirement === 'operator' && key.role !== 'operator') throw new TenancyException(TenancyErrorCode.WrongRole, 'operator key required');
    return { kind: 'api-key', tenantId: key.tenantId, role: key.role, keyId: key.keyId };
  }
}
