import { asTenantId, type TenantId } from '@arbiter/common';
import type { RequestWithPrincipal } from './auth.decorator.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';

/**
 * The tenant a call acts on: the key's own, or the one the platform admin names (`?tenantId=`). An
 * operator's `tenantId` naming another tenant is refused. With `allowAll`, the platform admin without
 * a `tenantId` acts across tenants (null).
 */
export function scopeOf(request: RequestWithPrincipal, tenantIdParam: string | undefined): TenantId;
export function scopeOf(request: RequestWithPrincipal, tenantIdParam: string | undefined, allowAll: true): TenantId | null;
export function scopeOf(request: RequestWithPrincipal, tenantIdParam: string | undefined, allowAll = false): TenantId | null {
  const principal = request.principal;
  if (principal?.kind === 'admin' && !principal.tenantId && allowAll) return null;
  if (!principal?.tenantId) throw new TenancyException(TenancyErrorCode.TenantIdRequired, 'the platform admin names the tenant: ?tenantId=<uuid>');
  if (principal.kind === 'api-key' && tenantIdParam !== undefined && tenantIdParam.toLowerCase() !== principal.tenantId)
    throw new TenancyException(TenancyErrorCode.InvalidKeyRequest, 'tenantId: only the platform admin names a tenant; a key acts for its own');
  return asTenantId(principal.tenantId);
}
