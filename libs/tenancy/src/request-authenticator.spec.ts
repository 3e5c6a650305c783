import { describe, expect, it } from '@jest/globals';
import type { AdminToken } from './admin-token.js';
import { acceptsBearerClientKey, RequestAuthenticator, type RequestHeaders } from './request-authenticator.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import type { TenancyService } from './tenancy.service.js';

const KEYS: Record<string, { tenantId: string; role: 'client' | 'operator'; keyId: string }> = {
  'client-key': { tenantId: 't1', role: 'client', keyId: 'k1' },
  'operator-key': { tenantId: 't1', role: 'operator', keyId: 'k2' },
};
const tenancy = { resolveApiKey: (raw: string) => Promise.resolve(KEYS[raw] ?? null) } as unknown as TenancyService;
const authenticator = new RequestAuthenticator(tenancy, { value: 'admin-secret', generated: false } as AdminToken);

async function outcome(requirement: 'client' | 'operator' | 'admin', headers: RequestHeaders, bearerClientKey: boolean): Promise<string> {
  try {
    const principal = await authenticator.authenticate(requirement, headers, { bearerClientKey });
    return principal.kind === 'admin' ? 'admin' : `${principal.role}:${principal.tenantId}`;
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
