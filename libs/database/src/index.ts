export * from './embedded-postgres.js';
export * from './migrator.js';
export * from './schema-check.js';
export * from './database.tokens.js';
export * from './database-connection.js';
export * from './database-health.service.js';
export * from './database.module.js';
export * from './pool-options.js';
