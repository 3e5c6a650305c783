import { Injectable } from '@nestjs/common';
import { asTenantId, assertNever, isOpenAiCompatibleRoute } from '@arbiter/common';
import { AdminToken } from './admin-token.js';
import { secretsEqual } from './api-key.util.js';
import type { ApiKeyRole } from './entities/api-key.entity.js';
import type { AuthOptions, AuthRequirement, Principal } from './auth.decorator.js';
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
   * `method`: a viewer key may call GET routes (and the POSTs whose `@Auth` says `viewer`).
   * `tenantIdParam`: the `?tenantId=` of a route that admits the platform admin for any tenant.
   */
  async authenticate(requirement: Exclude<AuthRequirement, 'public'>, headers: RequestHeaders, options: AuthenticateOptions = {}): Promise<Principal> {
    if (requirement === 'admin') return this.platformAdmin(headers);
    const rawKey = header(headers, 'x-api-key') ?? (options.bearerClientKey ? bearerToken(headers) : undefined);
    if (!rawKey && options.route?.platformAdmin && bearerToken(headers) !== undefined)
      return options.route.platformAdmin === 'any-tenant' && options.tenantIdParam === undefined
        ? this.platformAdmin(headers)
        : this.platformAdminForTenant(headers, options.tenantIdParam);
    if (!rawKey)
      throw new TenancyException(
        TenancyErrorCode.MissingCredentials,
        options.bearerClientKey ? 'send Authorization: Bearer <client key> or X-Api-Key' : 'send the X-Api-Key header',
      );
    const key = await this.tenancy.resolveApiKey(rawKey);
    if (key === 'expired') throw new TenancyException(TenancyErrorCode.ExpiredApiKey);
    if (!key) throw new TenancyException(TenancyErrorCode.InvalidApiKey);
    if (!roleMayCall(key.role, requirement, options)) throw new TenancyException(TenancyErrorCode.WrongRole, wrongRoleDetail(key.role, requirement));
    const origin = header(headers, 'origin');
    if (origin !== undefined && key.allowedOrigins.length > 0 && !key.allowedOrigins.includes(origin))
      throw new TenancyException(TenancyErrorCode.OriginNotAllowed, `this key is not allowed from ${origin}`);
    return { kind: 'api-key', tenantId: key.tenantId, role: key.role, keyId: key.keyId, keyName: key.name };
  }

  private platformAdmin(headers: RequestHeaders): Principal {
    const token = bearerToken(headers);
    if (!token) throw new TenancyException(TenancyErrorCode.MissingCredentials, 'send Authorization: Bearer <ADMIN_TOKEN>');
    if (!secretsEqual(token, this.adminToken.value)) throw new TenancyException(TenancyErrorCode.InvalidAdminToken);
    return { kind: 'admin' };
  }

  /** The platform admin acting for one tenant (`?tenantId=`) on a route whose `@Auth` admits it. */
  private platformAdminForTenant(headers: RequestHeaders, tenantIdParam: unknown): Principal {
    const principal = this.platformAdmin(headers);
    if (typeof tenantIdParam !== 'string' || !UUID.test(tenantIdParam))
      throw new TenancyException(TenancyErrorCode.TenantIdRequired, 'the platform admin names the tenant: ?tenantId=<uuid>');
    return { ...principal, tenantId: asTenantId(tenantIdParam.toLowerCase()) };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuthenticateOptions {
  bearerClientKey?: boolean;
  /** The request's method (viewers may call GET routes). */
  method?: string;
  /** The route's `@Auth` options. */
  route?: AuthOptions;
  /** `?tenantId=` as the request gave it. */
  tenantIdParam?: unknown;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The role table of docs/http-edge.md "Keys". */
export function roleMayCall(role: ApiKeyRole, requirement: 'operator' | 'client', options: AuthenticateOptions): boolean {
  switch (role) {
    case 'operator':
      return true;
    case 'client':
      return requirement === 'client';
    case 'viewer':
      return READ_METHODS.has((options.method ?? 'GET').toUpperCase()) || options.route?.viewer === true;
    default:
      return assertNever(role, 'api key role');
  }
}

function wrongRoleDetail(role: ApiKeyRole, requirement: 'operator' | 'client'): string {
  if (role === 'viewer') return 'a viewer key is read-only';
  return `${requirement} key required`;
}
