import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { type BackgroundStep, runStepNow } from '@arbiter/database';
import { KnowledgeRepository, type NewChunk, type NewDocument } from './knowledge.repository.js';
import { type ChunkDraft, KnowledgeService, type UpsertResult } from './knowledge.service.js';
import { LexicalRepository } from './lexical.repository.js';
import type { IndexedChunk } from './lexical/indexing.js';
import { LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { GROUP_WRITE_CHUNKS, writeGroups } from './write-groups.js';

/** A document of {@link GroupWriteService.writeInGroups} with its chunks. */
export interface GroupWriteDocument {
  doc: NewDocument;
  drafts: readonly ChunkDraft[];
}

/** How {@link GroupWriteService.writeInGroups} writes. */
export interface GroupWriteOptions {
  /** Runs each database step, as {@link UpsertManyOptions.step}. */
  step?: BackgroundStep;
  /** Chunks per transaction; default {@link GROUP_WRITE_CHUNKS}. */
  groupChunks?: number;
}

/**
 * A file's new documents written in groups of chunks, hidden until all are whole (docs/hot-paths.md "A large file's
 * write in groups"). The documents' chunks are prepared by `KnowledgeService` as for every other write.
 */
@Injectable()
export class GroupWriteService {
  private readonly logger = new Logger('Knowledge');

  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly repository: KnowledgeRepository,
    private readonly lexical: LexicalRepository,
  ) {}

  /**
   * Writes new documents (a file's) in groups of {@link GROUP_WRITE_CHUNKS} chunks, each group one short transaction,
   * the documents hidden (`writing`) until a last short transaction counts them in the statistics and shows them all
   * (docs/hot-paths.md "A large file's write in groups"): a large file's thousands of chunks do not hold the embedded
   * database's one backend for the whole write, and a lookup sees the file's documents all or none. Documents at these
   * paths still being written (an earlier write that did not finish) are removed first. Returns null when the tenant
   * has a document at one of the paths: the caller replaces them with `KnowledgeService.upsertMany` (one transaction: the old
   * version or the new one, never a mix). On failure the partial documents are removed and the error thrown.
   */
  async writeInGroups(tenantId: TenantId, items: readonly GroupWriteDocument[], options: GroupWriteOptions = {}): Promise<UpsertResult[] | null> {
    const step = options.step ?? runStepNow;
    const groupLimit = options.groupChunks ?? GROUP_WRITE_CHUNKS;
    if (items.some((i) => !i.drafts.length)) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_EMPTY, undefined, { fields: ['content'] });
    const space = this.knowledge.space;
    await this.knowledge.hidden.sweepAbandoned(tenantId, step);
    const stats = await step(() => this.lexical.stats(tenantId));
    // The hidden rows first: when a shown document holds a path, the caller writes the file another way before
    // anything was embedded (a chunk per draft).
    const ids = await this.createWriting(
      tenantId,
      items.map((item) => ({ doc: item.doc, chunkCount: item.drafts.length })),
      step,
    );
    if (!ids) return null;
    const documentIds = items.map((item) => ids.get(item.doc.filePath) as string);
    try {
      const prepared: { chunks: NewChunk[]; indexed: IndexedChunk[] }[] = [];
      // A new file has no earlier chunks whose vectors could be reused.
      for (const item of items) prepared.push(await this.knowledge.prepare(item.doc, item.drafts, undefined, stats.averageLength));
      const started = performance.now();
      const groups = writeGroups(
        prepared.map((p) => p.chunks.length),
        groupLimit,
      );
      for (const group of groups) {
        const segments = group.map(({ doc, first, count }) => ({
          documentId: documentIds[doc],
          domain: items[doc].doc.domain,
          firstIndex: first,
          chunks: prepared[doc].chunks.slice(first, first + count),
          postings: prepared[doc].indexed.slice(first, first + count),
        }));
        await step(() =>
          this.repository.appendChunks(tenantId, segments, space, (tx) =>
            this.lexical.appendPostings(
              tx,
              tenantId,
              segments.map((s) => ({ documentId: s.documentId, domain: s.domain, chunks: s.postings })),
            ),
          ),
        );
      }
      const publishing = performance.now();
      const documents = await step(() =>
        this.repository.publishWriting(tenantId, documentIds, (tx) =>
          this.lexical.publishDocuments(
            tx,
            tenantId,
            documentIds.map((documentId, k) => ({ documentId, chunks: prepared[k].indexed })),
            LEXICAL_ANALYZER_VERSION,
          ),
        ),
      );
      this.logger.log({
        msg: 'knowledge documents written in groups',
        documents: documents.length,
        chunks: prepared.reduce((n, p) => n + p.chunks.length, 0),
        groups: groups.length,
        groupsMs: Math.round(publishing - started),
        publishMs: Math.round(performance.now() - publishing),
      });
      return documents.map((document) => ({ status: 'created', document }));
    } catch (error) {
      for (const [k, id] of documentIds.entries())
        await this.knowledge.hidden.remove(tenantId, { id, chunkCount: items[k].drafts.length }, step).catch((cleanup: unknown) =>
          // The next write of the path removes it (`createWriting` finds it).
          this.logger.warn({ msg: 'unfinished document not removed', documentId: id, error: String(cleanup) }),
        );
      throw error;
    }
  }

  /**
   * The hidden rows of a write in groups, by file path; earlier unfinished ones at these paths removed first. Null when
   * a shown document holds one of the paths (the rows this call made are removed again).
   */
  private async createWriting(
    tenantId: TenantId,
    items: readonly { doc: NewDocument; chunkCount: number }[],
    step: BackgroundStep,
  ): Promise<Map<string, string> | null> {
    const ids = await step(() => this.repository.createWriting(tenantId, items));
    const missing = items.filter((i) => !ids.has(i.doc.filePath));
    if (missing.length) {
      const unfinished = await step(() =>
        this.repository.findWriting(
          tenantId,
          missing.map((i) => i.doc.filePath),
        ),
      );
      for (const doc of unfinished) await this.knowledge.hidden.remove(tenantId, doc, step);
      for (const [path, id] of await step(() => this.repository.createWriting(tenantId, missing))) ids.set(path, id);
    }
    if (ids.size === items.length) return ids;
    for (const id of ids.values()) await step(() => this.repository.deleteWriting(tenantId, id));
    return null;
  }
}
