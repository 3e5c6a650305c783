import { DecisionLogSettingsEntity } from './decision-log-settings.entity.js';
import { DecisionLogEntity } from './decision-log.entity.js';
import { IntentFitEntity } from './intent-fit.entity.js';
import { IntentReplayEntity } from './intent-replay.entity.js';
import { LabelledExampleEntity } from './labelled-example.entity.js';
import { LabelledSetEntity } from './labelled-set.entity.js';

export { DecisionLogEntity, DecisionLogSettingsEntity, IntentFitEntity, IntentReplayEntity, LabelledExampleEntity, LabelledSetEntity };
export type { IntentFitStatus } from './intent-fit.entity.js';
export type { LabelledSetKind } from './labelled-set.entity.js';

/** Every entity of the intent-learning lib (TypeOrmModule.forFeature and the schema check). */
export const INTENT_LEARNING_ENTITIES = [
  DecisionLogEntity,
  DecisionLogSettingsEntity,
  LabelledSetEntity,
  LabelledExampleEntity,
  IntentFitEntity,
  IntentReplayEntity,
];
