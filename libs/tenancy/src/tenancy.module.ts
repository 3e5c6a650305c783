import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '@arbiter/database';
import { AdminToken } from './admin-token.js';
import { TENANCY_ENTITIES } from './entities/index.js';
import { AuthGuard } from './auth.guard.js';
import { RequestAuthenticator } from './request-authenticator.js';
import { TenancyRepository } from './tenancy.repository.js';
import { TenancyService } from './tenancy.service.js';
import { TenantSeeds } from './tenant-seeds.js';
import { TenantsController } from './tenants.controller.js';
import { ApiKeysController } from './api-keys.controller.js';
import { RateLimitRepository } from './rate-limit/rate-limit.repository.js';
import { AuditController } from './audit/audit.controller.js';
import { AuditLog } from './audit/audit-log.js';
import { AuditRepository } from './audit/audit.repository.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';

/** Access: tenants, API keys, the auth guard (an app-wide APP_GUARD), rate limits, the audit log (`AuditLog`) and `TenantSeeds`: import it where you inject its providers. */
@Module({
  // The entities stay for the boot-time schema check; the SQL is on the typed data layer (docs/data-layer.md).
  imports: [TypeOrmModule.forFeature(TENANCY_ENTITIES), DatabaseModule],
  controllers: [TenantsController, ApiKeysController, AuditController],
  providers: [
    TenancyRepository,
    TenancyService,
    RateLimitRepository,
    RateLimiter,
    AuditRepository,
    AuditLog,
    AdminToken,
    TenantSeeds,
    RequestAuthenticator,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [TenancyService, AdminToken, TenantSeeds, RequestAuthenticator, RateLimiter, AuditLog],
})
export class TenancyModule {}
