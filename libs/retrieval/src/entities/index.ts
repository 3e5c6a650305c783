import { KnowledgeChunkEntity } from './knowledge-chunk.entity.js';
import { KnowledgeDocumentEntity } from './knowledge-document.entity.js';
import { RetrievalMemoryEntity } from './retrieval-memory.entity.js';
import { RetrievalSettingsEntity } from './retrieval-settings.entity.js';

export { KnowledgeChunkEntity, KnowledgeDocumentEntity, RetrievalMemoryEntity, RetrievalSettingsEntity };
export const RETRIEVAL_ENTITIES = [KnowledgeDocumentEntity, KnowledgeChunkEntity, RetrievalMemoryEntity, RetrievalSettingsEntity];
