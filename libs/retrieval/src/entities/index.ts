import { KnowledgeChunkEntity } from './knowledge-chunk.entity.js';
import { KnowledgeDocumentEntity } from './knowledge-document.entity.js';
import { KnowledgeFileEntity } from './knowledge-file.entity.js';
import { KnowledgeFilePartEntity } from './knowledge-file-part.entity.js';
import { RetrievalMemoryEntity } from './retrieval-memory.entity.js';
import { RetrievalSettingsEntity } from './retrieval-settings.entity.js';

export { KnowledgeChunkEntity, KnowledgeDocumentEntity, KnowledgeFileEntity, KnowledgeFilePartEntity, RetrievalMemoryEntity, RetrievalSettingsEntity };
export const RETRIEVAL_ENTITIES = [
  KnowledgeFileEntity,
  KnowledgeFilePartEntity,
  KnowledgeDocumentEntity,
  KnowledgeChunkEntity,
  RetrievalMemoryEntity,
  RetrievalSettingsEntity,
];
