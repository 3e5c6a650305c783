import { CoverageDecisionEntity } from './coverage-decision.entity.js';

export * from './coverage-decision.entity.js';

/** Every entity of the coverage lib (TypeOrmModule.forFeature). */
export const COVERAGE_ENTITIES = [CoverageDecisionEntity];
