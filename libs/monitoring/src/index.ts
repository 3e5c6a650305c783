// Pure core (no Nest, no database)
export * from './monitoring.exception.js';
export * from './time-bound.js';
export * from './stats-assembler.js';
// Nest module and its providers
export * from './monitoring.repository.js';
export * from './stats-rollup.repository.js';
export * from './monitoring.service.js';
export * from './monitoring.module.js';
export * from './dto/monitoring-query.dto.js';
export * from './dto/monitoring-response.dto.js';
