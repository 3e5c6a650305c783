export * from './job-run.entity.js';
export * from './job.types.js';
export * from './jobs.exception.js';
export * from './jobs.service.js';
export * from './jobs.module.js';
export * from './dto/job-run.dto.js';
