import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum TenancyErrorCode {
  MissingCredentials = 'AUTH_MISSING_CREDENTIALS',
  InvalidApiKey = 'AUTH_INVALID_API_KEY',
  InvalidAdminToken = 'AUTH_INVALID_ADMIN_TOKEN',
  WrongRole = 'AUTH_WRONG_ROLE',
  TenantNameTaken = 'TENANT_NAME_TAKEN',
  ExpiredApiKey = 'AUTH_EXPIRED_API_KEY',
  OriginNotAllowed = 'ORIGIN_NOT_ALLOWED',
  TenantIdRequired = 'TENANT_ID_REQUIRED',
  TenantNotFound = 'TENANT_NOT_FOUND',
  ApiKeyNotFound = 'API_KEY_NOT_FOUND',
  ApiKeyRevoked = 'API_KEY_REVOKED',
  InvalidKeyRequest = 'API_KEY_INVALID_REQUEST',
  RateLimited = 'RATE_LIMITED',
  TooManyAuthFailures = 'TOO_MANY_AUTH_FAILURES',
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
    case TenancyErrorCode.ExpiredApiKey:
      return { status: 401, message: 'API key expired' };
    case TenancyErrorCode.OriginNotAllowed:
      return { status: 403, message: 'This key may not be used from this origin' };
    case TenancyErrorCode.TenantIdRequired:
      return { status: 400, message: 'tenantId is required' };
    case TenancyErrorCode.TenantNotFound:
      return { status: 404, message: 'Tenant not found' };
    case TenancyErrorCode.ApiKeyNotFound:
      return { status: 404, message: 'API key not found' };
    case TenancyErrorCode.ApiKeyRevoked:
      return { status: 409, message: 'API key is revoked' };
    case TenancyErrorCode.InvalidKeyRequest:
      return { status: 400, message: 'Invalid API key request' };
    case TenancyErrorCode.RateLimited:
      return { status: 429, message: 'Rate limit exceeded' };
    case TenancyErrorCode.TooManyAuthFailures:
      return { status: 429, message: 'Too many failed authentication attempts from this address' };
    default:
      return assertNever(code, 'tenancy error code');
  }
}

export class TenancyException extends DomainException<TenancyErrorCode> {
  constructor(code: TenancyErrorCode, detail?: string) {
    super(code, tenancyErrorSpec(code), detail);
  }
}
