import { describe, expect, it } from '@jest/globals';
import type { AdminToken } from './admin-token.js';
import { acceptsBearerClientKey, RequestAuthenticator, roleMayCall, type AuthenticateOptions, type RequestHeaders } from './request-authenticator.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import type { TenancyService } from './tenancy.service.js';

const KEYS: Record<string, unknown> = {
  'client-key': { tenantId: 't1', role: 'client', keyId: 'k1', name: 'widget', allowedOrigins: [] },
  'operator-key': { tenantId: 't1', role: 'operator', keyId: 'k2', name: 'ops', allowedOrigins: [] },
  'viewer-key': { tenantId: 't1', role: 'viewer', keyId: 'k3', name: 'console', allowedOrigins: [] },
  'shop-key': { tenantId: 't1', role: 'client', keyId: 'k4', name: 'shop', allowedOrigins: ['https://shop.example.com'] },
  'old-key': 'expired',
};
const tenancy = { resolveApiKey: (raw: string) => Promise.resolve(KEYS[raw] ?? null) } as unknown as TenancyService;
const authenticator = new RequestAuthenticator(tenancy, { value: 'admin-secret', generated: false } as AdminToken);

async function outcome(
  requirement: 'client' | 'operator' | 'admin',
  headers: RequestHeaders,
  bearerClientKey: boolean,
  options: AuthenticateOptions = {},
): Promise<string> {
  try {
    const principal = await authenticator.authenticate(requirement, headers, { bearerClientKey, ...options });
    if (principal.kind === 'admin') return principal.tenantId ? `admin:${principal.tenantId}` : 'admin';
    return `${principal.role}:${principal.tenantId}`;
  } catch (error) {
    if (error instanceof TenancyException) return error.code;
    throw error;
  }
}

describe('RequestAuthenticator: a tenant key as a Bearer token on the OpenAI-compatible routes only', () => {
  it.each([
    ['X-Api-Key', 'client', { 'x-api-key': 'client-key' }, false, 'client:t1'],
    ['X-Api-Key on /v1', 'client', { 'x-api-key': 'client-key' }, true, 'client:t1'],
    ['Bearer client key on /v1', 'client', { authorization: 'Bearer client-key' }, true, 'client:t1'],
    ['Bearer operator key on /v1', 'operator', { authorization: 'Bearer operator-key' }, true, 'operator:t1'],
    ['Bearer client key elsewhere', 'client', { authorization: 'Bearer client-key' }, false, TenancyErrorCode.MissingCredentials],
    ['wrong Bearer key on /v1', 'client', { authorization: 'Bearer nope' }, true, TenancyErrorCode.InvalidApiKey],
    ['empty Bearer on /v1', 'client', { authorization: 'Bearer   ' }, true, TenancyErrorCode.MissingCredentials],
    ['X-Api-Key wins over Bearer', 'client', { 'x-api-key': 'nope', authorization: 'Bearer client-key' }, true, TenancyErrorCode.InvalidApiKey],
    ['Bearer client key on an operator route', 'operator', { authorization: 'Bearer client-key' }, true, TenancyErrorCode.WrongRole],
    ['admin token still admin', 'admin', { authorization: 'Bearer admin-secret' }, false, 'admin'],
    ['a client key is no admin token', 'admin', { authorization: 'Bearer client-key' }, true, TenancyErrorCode.InvalidAdminToken],
  ] as const)('%s (a route for %s) → %s', async (_name, requirement, headers, bearer, expected) => {
    expect(await outcome(requirement, headers, bearer)).toBe(expected);
  });

  it.each([
    ['/v1/chat/completions', true],
    ['/v1/models', true],
    ['/v1', true],
    ['/v1?x=1', true],
    ['/v10/models', false],
    ['/ai/chat', false],
    ['/api/v1/x', false],
  ])('%s → %s', (url, expected) => {
    expect(acceptsBearerClientKey(url)).toBe(expected);
  });
});

describe('RequestAuthenticator: roles, expiry, origins and the platform admin (docs/http-edge.md "Keys")', () => {
  const T2 = '2b7f6a8e-1f7a-4c3e-9a55-0b6f0c7d9e11';
  it.each([
    ['viewer GET on an operator route', 'operator', { 'x-api-key': 'viewer-key' }, { method: 'GET' }, 'viewer:t1'],
    ['viewer POST on an operator route', 'operator', { 'x-api-key': 'viewer-key' }, { method: 'POST' }, TenancyErrorCode.WrongRole],
    ['viewer POST on a route that admits viewers', 'client', { 'x-api-key': 'viewer-key' }, { method: 'POST', route: { viewer: true } }, 'viewer:t1'],
    ['viewer POST on a client route', 'client', { 'x-api-key': 'viewer-key' }, { method: 'POST' }, TenancyErrorCode.WrongRole],
    ['client GET on an operator route', 'operator', { 'x-api-key': 'client-key' }, { method: 'GET' }, TenancyErrorCode.WrongRole],
    ['expired key', 'client', { 'x-api-key': 'old-key' }, {}, TenancyErrorCode.ExpiredApiKey],
    ['key from an allowed origin', 'client', { 'x-api-key': 'shop-key', origin: 'https://shop.example.com' }, {}, 'client:t1'],
    ['key from another origin', 'client', { 'x-api-key': 'shop-key', origin: 'https://shop.example.com.evil.net' }, {}, TenancyErrorCode.OriginNotAllowed],
    ['key without Origin', 'client', { 'x-api-key': 'shop-key' }, {}, 'client:t1'],
    ['key with no origin list from any origin', 'client', { 'x-api-key': 'client-key', origin: 'https://x.example' }, {}, 'client:t1'],
    [
      'admin token on a platform-admin route with a tenant',
      'operator',
      { authorization: 'Bearer admin-secret' },
      { route: { platformAdmin: true }, tenantIdParam: T2 },
      `admin:${T2}`,
    ],
    [
      'admin token without a tenant',
      'operator',
      { authorization: 'Bearer admin-secret' },
      { route: { platformAdmin: true } },
      TenancyErrorCode.TenantIdRequired,
    ],
    [
      'wrong admin token on a platform-admin route',
      'operator',
      { authorization: 'Bearer nope' },
      { route: { platformAdmin: true }, tenantIdParam: T2 },
      TenancyErrorCode.InvalidAdminToken,
    ],
    ['admin token on an operator-only route', 'operator', { authorization: 'Bearer admin-secret' }, { tenantIdParam: T2 }, TenancyErrorCode.MissingCredentials],
  ] as const)('%s → %s', async (_name, requirement, headers, options, expected) => {
    expect(await outcome(requirement, headers, false, options as AuthenticateOptions)).toBe(expected);
  });

  it.each([
    ['operator', 'operator', 'POST', false, true],
    ['operator', 'client', 'POST', false, true],
    ['client', 'client', 'POST', false, true],
    ['client', 'operator', 'GET', false, false],
    ['viewer', 'operator', 'GET', false, true],
    ['viewer', 'operator', 'HEAD', false, true],
    ['viewer', 'operator', 'DELETE', false, false],
    ['viewer', 'operator', 'POST', true, true],
    ['viewer', 'client', 'POST', false, false],
  ] as const)('role %s on a %s route, %s (viewer admitted: %s) → %s', (role, requirement, method, viewer, expected) => {
    expect(roleMayCall(role, requirement, { method, route: { viewer } })).toBe(expected);
  });
});
