import { Injectable } from '@nestjs/common';
import { isOpenAiCompatibleRoute } from '@arbiter/common';
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

function bearerToken(headers: RequestHeaders): string | undefined {
  const authorization = header(headers, 'authorization');
  return authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() || undefined : undefined;
}

/** The OpenAI-compatible routes, where a tenant key may come as a Bearer token (docs/chat-clients.md). */
export function acceptsBearerClientKey(url: string): boolean {
  return isOpenAiCompatibleRoute(url);
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

  /**
   * `bearerClientKey`: a tenant key may also come as `Authorization: Bearer <key>` — only on the
   * OpenAI-compatible routes (`/v1/*`, docs/chat-clients.md), whose clients send their key that way.
   */
  async authenticate(
    requirement: Exclude<AuthRequirement, 'public'>,
    headers: RequestHeaders,
    options: { bearerClientKey?: boolean } = {},
  ): Promise<Principal> {
    if (requirement === 'admin') {
      const token = bearerToken(headers);
      if (!token) throw new TenancyException(TenancyErrorCode.MissingCredentials, 'send Authorization: Bearer <ADMIN_TOKEN>');
      if (!secretsEqual(token, this.adminToken.value)) throw new TenancyException(TenancyErrorCode.InvalidAdminToken);
      return { kind: 'admin' };
    }
    const rawKey = header(headers, 'x-api-key') ?? (options.bearerClientKey ? bearerToken(headers) : undefined);
    if (!rawKey)
      throw new TenancyException(
        TenancyErrorCode.MissingCredentials,
        options.bearerClientKey ? 'send Authorization: Bearer <client key> or X-Api-Key' : 'send the X-Api-Key header',
      );
    const key = await this.tenancy.resolveApiKey(rawKey);
    if (!key) throw new TenancyException(TenancyErrorCode.InvalidApiKey);
    if (requirement === 'operator' && key.role !== 'operator') throw new TenancyException(TenancyErrorCode.WrongRole, 'operator key required');
    return { kind: 'api-key', tenantId: key.tenantId, role: key.role, keyId: key.keyId };
  }
}
