// Test-only infrastructure (excluded from the production build by tsconfig.build.json).
export * from './fake-openai-server.js';
export * from './deadline.js';
export * from './prng.js';
export * from './poll-until.js';
export * from './database/test-database.js';
export * from './database/test-db-env.js';
export { createCitusDatabase, dropCitusDatabase } from './database/citus.js';
export * from './database/template.js';
export * from './medium.js';
export * from './database/explain.js';
export * from './database/trigger-ddl.js';
