import type { Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { type BackgroundStep, runStepNow } from '@arbiter/database';
import type { HiddenDocument, KnowledgeRepository } from './knowledge.repository.js';
import type { LexicalRepository } from './lexical.repository.js';
import { GROUP_WRITE_CHUNKS } from './write-groups.js';

/**
 * Removes hidden documents (`knowledge_document.writing`: being written in groups, or removed) in groups of chunks, each
 * statement on its own, so a large document's removal never holds the embedded database's one backend for long
 * (docs/hot-paths.md "A large document's removal in groups"). Their postings no longer count in the statistics, so
 * deleting them changes no lookup.
 */
export class HiddenDocuments {
  constructor(
    private readonly repository: KnowledgeRepository,
    private readonly lexical: LexicalRepository,
    private readonly logger: Logger,
  ) {}

  /** Deletes a hidden document: its postings, then its chunks, `groupChunks` chunk indices at a time, then the row. */
  async remove(tenantId: TenantId, doc: HiddenDocument, step: BackgroundStep = runStepNow, groupChunks = GROUP_WRITE_CHUNKS): Promise<void> {
    for (let first = 0; first < doc.chunkCount; first += groupChunks)
      await step(() => this.lexical.deleteUncountedPostings(tenantId, doc.id, first, first + groupChunks));
    for (let first = 0; first < doc.chunkCount; first += groupChunks)
      await step(() => this.repository.deleteHiddenChunks(tenantId, doc.id, first, first + groupChunks));
    await step(() => this.repository.deleteWriting(tenantId, doc.id));
  }

  /**
   * Removes the tenant's hidden documents that a write or a removal left behind when its process died (untouched for
   * `ABANDONED_HIDDEN_MS`). Never throws: what is left is tried again next time.
   */
  async sweepAbandoned(tenantId: TenantId, step: BackgroundStep = runStepNow): Promise<void> {
    try {
      for (const doc of await step(() => this.repository.abandonedHidden(tenantId))) await this.remove(tenantId, doc, step);
    } catch (error) {
      this.logger.warn({ msg: 'abandoned hidden documents not removed', tenantId, error: String(error) });
    }
  }
}
