export * from './routing/index.js';
export * from './entities/index.js';
export * from './intent.types.js';
export * from './intent.exception.js';
export { IntentService } from './intent.service.js';
export { IntentRulesService, INTENT_REEMBED_JOB } from './intent-rules.service.js';
export { IntentConfigService } from './intent-config.service.js';
export { IntentModule } from './intent.module.js';
export { DEMO_INTENT_RULES } from './intent.seeds.js';
