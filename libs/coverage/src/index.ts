// Pure core (no Nest, no database)
export * from './coverage.exception.js';
export * from './gap-text.js';
export * from './report-range.js';
export * from './evaluator/coverage.types.js';
export * from './evaluator/coverage-evaluator.v1.js';
export * from './evaluator/coverage-evaluator.registry.js';
export * from './coverage-decider.js';
export * from './coverage-backfill.js';
export * from './coverage-v1-sql.js';
// Nest module and its providers
export * from './entities/index.js';
export * from './coverage.repository.js';
export * from './coverage-backfill.repository.js';
export * from './coverage.service.js';
export * from './coverage-backfill.job.js';
export * from './coverage.module.js';
export * from './dto/coverage-query.dto.js';
export * from './dto/coverage-response.dto.js';
