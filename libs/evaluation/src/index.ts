export * from './rule-evaluator.js';
export * from './llm-evaluator.js';
export * from './evaluation.exception.js';
export * from './evaluation.repository.js';
export * from './evaluation.service.js';
export * from './evaluation.module.js';
export * from './evaluation.jobs.js';
