import { ApiKeyEntity } from './api-key.entity.js';
import { TenantEntity } from './tenant.entity.js';

export * from './tenant.entity.js';
export * from './api-key.entity.js';

/** Every entity of the tenancy lib (TypeOrmModule.forFeature). */
export const TENANCY_ENTITIES = [TenantEntity, ApiKeyEntity];
