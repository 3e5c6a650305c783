import { Inject, Injectable, Logger } from '@nestjs/common';
import { mapSliced } from '@arbiter/common';
import type { TenantId } from '@arbiter/common';
import type { JobSteps } from '@arbiter/jobs';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { chunkText } from './chunker.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { KnowledgeRepository, type VectorSpace } from './knowledge.repository.js';
import { LexicalRepository } from './lexical.repository.js';
import { chunkContextText } from './lexical/chunk-context.js';
import { analyzeHeading, indexAnalyzed } from './lexical/indexing.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { KnowledgeService } from './knowledge.service.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';

/**
 * The work behind the retrieval jobs (`lexical-reindex.job.ts`, `reembed.job.ts`): lexical re-index and re-embedding into the configured
 * provider's vector space. Lookups keep working during a re-embed: they search the documents already
 * in the new space, and chunks of the old space are dropped only once every document has been re-embedded.
 */
@Injectable()
export class RetrievalJobs {
  private readonly logger = new Logger('RetrievalJobs');

  constructor(
    private readonly repository: KnowledgeRepository,
    private readonly knowledge: KnowledgeService,
    private readonly settings: RetrievalSettingsService,
    private readonly index: VectorIndexService,
    private readonly lexical: LexicalRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly chunks: KnowledgeChunkRepository,
  ) {}

  private get space(): VectorSpace {
    return { model: this.provider.id, dim: this.provider.dimension };
  }

  /** Rebuilds the lexical postings of every document indexed by another analyzer version; returns how many. */
  async reindexLexical(tenantId: TenantId, afterId: string | null, batchSize: number, run: JobSteps): Promise<number> {
    const { step, progress } = run;
    const { chunkSize, chunkOverlap } = await step(() => this.settings.get(tenantId));
    let cursor = afterId;
    let total = 0;
    for (;;) {
      const docs = await step(() => this.lexical.staleDocuments(tenantId, LEXICAL_ANALYZER_VERSION, cursor, batchSize));
      if (!docs.length) break;
      for (const doc of docs) {
        // The stored chunks (edited text, a file's own chunks) where the document has them, else its content chunked anew.
        const [stats, stored] = await step(() => Promise.all([this.lexical.stats(tenantId), this.chunks.stored(tenantId, doc.id, this.space)]));
        const pieces = stored.length
          ? stored.map((c) => chunkContextText(c.content, c.section))
          : chunkText(doc.content, { chunkSize, overlap: chunkOverlap }).map((p) => p.content);
        // Jobs may run in the API process: analysis is paced like an import's.
        const bodies = await mapSliced(pieces, (piece) => analyzeText(piece));
        // A disabled chunk keeps its length in the statistics but has no postings (docs/documents.md "Chunks").
        const indexed = indexAnalyzed(analyzeHeading(doc.title, doc.keywords), bodies, stats.averageLength).map((c, k) =>
          stored[k]?.disabled ? { ...c, terms: [], impacts: [] } : c,
        );
        // One document's transaction, one turn at the gate: requests go first (docs/hot-paths.md "Imports: foreground first").
        await step(() =>
          this.lexical.transaction((tx) =>
            this.lexical.replaceDocuments(tx, tenantId, [{ documentId: doc.id, domain: doc.domain, chunks: indexed }], LEXICAL_ANALYZER_VERSION),
          ),
        );
      }
      total += docs.length;
      cursor = docs[docs.length - 1].id;
      if (progress) await progress(docs.length, cursor);
    }
    this.logger.log({ msg: 'lexical re-index finished', tenantId, documents: total });
    return total;
  }

  /** Documents `reindexLexical` still has to do after `afterId` (one count). */
  remainingLexical(tenantId: TenantId, afterId: string | null): Promise<number> {
    return this.lexical.countStaleDocuments(tenantId, LEXICAL_ANALYZER_VERSION, afterId);
  }

  /** Documents `reembed` still has to do after `afterId` (one count). */
  remainingReembed(tenantId: TenantId, afterId: string | null): Promise<number> {
    return this.repository.countDocumentsMissingSpace(tenantId, { model: this.provider.id, dim: this.provider.dimension }, afterId);
  }

  /** Re-embeds every document lacking chunks in the current space; returns how many were re-embedded. */
  async reembed(tenantId: TenantId, afterId: string | null, batchSize: number, run: JobSteps): Promise<number> {
    const { step, progress } = run;
    const space: VectorSpace = { model: this.provider.id, dim: this.provider.dimension };
    await step(() => this.index.ensureIndex(space));
    const { chunkSize, chunkOverlap } = await step(() => this.settings.get(tenantId));
    let cursor = afterId;
    let total = 0;
    for (;;) {
      const docs = await step(() => this.repository.documentsMissingSpace(tenantId, space, cursor, batchSize));
      if (!docs.length) break;
      for (const doc of docs) {
        // The chunks of the document's other space (edited text, disabled flags, a file's pages and sections) are
        // embedded anew; a document without any is chunked from its content (docs/documents.md "Chunks").
        const stored = await step(() => this.chunks.stored(tenantId, doc.id, space));
        const drafts = stored.length
          ? stored.map((c) => ({ content: c.content, page: c.page ?? undefined, pageEnd: c.pageEnd ?? undefined, section: c.section ?? undefined }))
          : chunkText(doc.content, { chunkSize, overlap: chunkOverlap }).map((p) => ({ content: p.content }));
        const chunks = (await this.knowledge.embedChunks(doc.title, drafts)).map((c, k) => (stored[k]?.disabled ? { ...c, disabled: true } : c));
        // One document's transaction, one turn at the gate: requests go first (docs/hot-paths.md "Imports: foreground first").
        await step(() => this.repository.replaceChunksInSpace(tenantId, doc.id, doc.domain, chunks, space));
      }
      total += docs.length;
      cursor = docs[docs.length - 1].id;
      if (progress) await progress(docs.length, cursor);
    }
    const dropped = await step(() => this.repository.dropOtherSpaces(tenantId, space));
    this.logger.log({ msg: 're-embed finished', tenantId, documents: total, droppedChunks: dropped, space: space.model });
    return total;
  }
}
