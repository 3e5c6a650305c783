/**
 * An audit recorder that records nothing, for integration tests of a lib's storage whose tenants are bare
 * ids (no `tenant` row, which an audit entry's foreign key needs). The audit entries themselves are
 * tested end to end (test/foundation/audit*.e2e-spec.ts).
 */
export function noAudit<T>(): T {
  return { record: () => Promise.resolve() } as unknown as T;
}
