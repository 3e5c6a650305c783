export * from './rule-evaluator.js';
export * from './llm-evaluator.js';
export * from './evaluation.exception.js';
export * from './evaluation.repository.js';
export * from './evaluation.service.js';
export * from './evaluation.module.js';
export * from './self-evaluate.job.js';
export * from './retry-fallbacks.job.js';
