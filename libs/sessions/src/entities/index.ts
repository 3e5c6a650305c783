import { ConversationEntity } from './conversation.entity.js';
import { DiagnosisSessionEntity } from './diagnosis-session.entity.js';
import { ToolInvocationEntity } from './tool-invocation.entity.js';

export * from './conversation.entity.js';
export * from './diagnosis-session.entity.js';
export * from './tool-invocation.entity.js';

/** Every entity of the sessions lib (TypeOrmModule.forFeature). */
export const SESSIONS_ENTITIES = [ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity];
