import { IntentRuleEmbeddingEntity } from './intent-rule-embedding.entity.js';
import { IntentRuleEntity } from './intent-rule.entity.js';
import { IntentTenantConfigEntity } from './intent-tenant-config.entity.js';

export { IntentRuleEntity, IntentRuleEmbeddingEntity, IntentTenantConfigEntity };

export const INTENT_ENTITIES = [IntentRuleEntity, IntentRuleEmbeddingEntity, IntentTenantConfigEntity];
