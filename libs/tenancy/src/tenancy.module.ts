import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminToken } from './admin-token.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { AuthGuard } from './auth.guard.js';
import { TenancyRepository } from './tenancy.repository.js';
import { TenancyService } from './tenancy.service.js';
import { TenantEntity } from './tenant.entity.js';
import { TenantSeeds } from './tenant-seeds.js';
import { TenantsController } from './tenants.controller.js';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([TenantEntity, ApiKeyEntity])],
  controllers: [TenantsController],
  providers: [TenancyRepository, TenancyService, AdminToken, TenantSeeds, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [TenancyService, AdminToken, TenantSeeds],
})
export class TenancyModule {}
