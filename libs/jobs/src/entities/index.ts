import { JobRunEntity } from './job-run.entity.js';

export * from './job-run.entity.js';

/** Every entity of the jobs lib (TypeOrmModule.forFeature). */
export const JOBS_ENTITIES = [JobRunEntity];
