export * from './tenant.entity.js';
export * from './api-key.entity.js';
export * from './auth.decorator.js';
export * from './admin-token.js';
export * from './tenancy.exception.js';
export * from './tenancy.service.js';
export * from './tenant-seeds.js';
export * from './tenancy.module.js';
export { secretsEqual } from './api-key.util.js';
