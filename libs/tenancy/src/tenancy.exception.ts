import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum TenancyErrorCode {
  MissingCredentials = 'AUTH_MISSING_CREDENTIALS',
  InvalidApiKey = 'AUTH_INVALID_API_KEY',
  InvalidAdminToken = 'AUTH_INVALID_ADMIN_TOKEN',
  WrongRole = 'AUTH_WRONG_ROLE',
  TenantNameTaken = 'TENANT_NAME_TAKEN',
}

export function tenancyErrorSpec(code: TenancyErrorCode): DomainErrorSpec {
  switch (code) {
    case TenancyErrorCode.MissingCredentials:
      return { status: 401, message: 'Authentication required' };
    case TenancyErrorCode.InvalidApiKey:
      return { status: 401, message: 'Invalid API key' };
    case TenancyErrorCode.InvalidAdminToken:
      return { status: 401, message: 'Invalid admin token' };
    case TenancyErrorCode.WrongRole:
      return { status: 403, message: 'This key may not call this endpoint' };
    case TenancyErrorCode.TenantNameTaken:
      return { status: 409, message: 'A tenant with this name already exists' };
    default:
      return assertNever(code, 'tenancy error code');
  }
}

export class TenancyException extends DomainException<TenancyErrorCode> {
  constructor(code: TenancyErrorCode, detail?: string) {
    super(code, tenancyErrorSpec(code), detail);
  }
}
