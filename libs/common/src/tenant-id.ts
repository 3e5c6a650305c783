/**
 * A tenant id that has passed authentication. Repositories take it as their first argument, so a
 * query that is not scoped to a tenant does not compile (a plain string is not a TenantId).
 */
export type TenantId = string & { readonly __brand: 'TenantId' };

/** Only the auth layer, seeding and tests mint tenant ids. */
export function asTenantId(id: string): TenantId {
  return id as TenantId;
}
