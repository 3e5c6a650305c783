import { Injectable } from '@nestjs/common';
import { DomainException } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';
import { JobHandler, type JobContext, type JobRunner } from '@arbiter/jobs';
import { FileImportProcessor, isFileItem } from './files/file-import.processor.js';
import { KnowledgeFilesRepository } from './files/knowledge-files.repository.js';
import { IMPORT_JOB } from './knowledge-import.job-name.js';
import { KnowledgeImportRepository, type ImportItemOutcome, type PendingImportItem } from './knowledge-import.repository.js';
import type { NewDocument } from './knowledge.repository.js';
import { KnowledgeService } from './knowledge.service.js';

/** Documents the import job reads per step (one `upsertMany`, then the outcomes and progress). */
export const IMPORT_BATCH = 20;
/**
 * Chunks per write transaction of an import (docs/hot-paths.md "Imports: foreground first"): on the embedded
 * database each chunk costs ~4–5 ms of HNSW maintenance, so a transaction of a few chunks holds the database
 * ~30 ms, the longest a neighbour's request waits behind the import. A document is never split.
 */
export const IMPORT_TRANSACTION_CHUNKS = 4;

/** `retrieval.import`: writes a stored import's pending items in batches. */
@Injectable()
@JobHandler(IMPORT_JOB)
export class KnowledgeImportJob implements JobRunner<typeof IMPORT_JOB> {
  constructor(
    private readonly imports: KnowledgeImportRepository,
    private readonly knowledge: KnowledgeService,
    private readonly fileImport: FileImportProcessor,
    private readonly files: KnowledgeFilesRepository,
  ) {}

  /**
   * Every database step — the batch read, the reads of `upsertMany`, each small write transaction, the
   * outcomes with the progress — is one turn of the tenant at the BackgroundGate (`ctx.step`): it starts when
   * requests leave the database a pause (or the import has waited its share), so requests of every tenant
   * run between the import's steps instead of behind the whole batch (docs/hot-paths.md "Imports: foreground first").
   */
  async run(ctx: ImportJobContext): Promise<void> {
    const { importId } = ctx.payload;
    const { step } = ctx;
    // The total: the items still pending when the run starts. A resumed attempt keeps the total the first one set
    // (`processed` counts written items, `failed` the refused ones: together they reach it).
    if (ctx.total === null) await ctx.setTotal(await step(() => this.imports.countPending(ctx.tenantId, importId)));
    let items = await step(() => this.imports.pending(ctx.tenantId, importId, IMPORT_BATCH));
    while (items.length) {
      if (items.some((i) => isFileItem(i.document))) {
        items = await this.runFiles(ctx, importId, items, step);
        continue;
      }
      const written = await this.knowledge.upsertMany(
        ctx.tenantId,
        items.map((i) => i.document as NewDocument),
        { groupChunks: IMPORT_TRANSACTION_CHUNKS, step },
      );
      const outcomes: ImportItemOutcome[] = items.map((item, k) => {
        const r = written[k]!;
        return r instanceof DomainException
          ? { seq: item.seq, status: 'failed', error: { code: r.code, message: r.message, ...(fieldsOf(r) ? { fields: fieldsOf(r) } : {}) } }
          : { seq: item.seq, status: r.status, documentId: r.document.id };
      });
      const failed = outcomes.filter((o) => o.status === 'failed').length;
      const checkpoint = items.at(-1)!.seq;
      // One turn: this batch's outcomes and progress, then the next batch.
      items = await step(async () => {
        await this.imports.record(ctx.tenantId, importId, outcomes);
        await ctx.progress({ processed: outcomes.length - failed, failed, checkpoint });
        return this.imports.pending(ctx.tenantId, importId, IMPORT_BATCH);
      });
    }
  }

  /**
   * The files of a file import, one at a time (docs/documents.md "Upload"): each file's outcome and the progress
   * are recorded as soon as it is written, so a resumed run starts at the first file without one; an uploaded
   * copy no document took is deleted after its outcome.
   */
  private async runFiles(ctx: ImportJobContext, importId: string, items: readonly PendingImportItem[], step: BackgroundStep): Promise<PendingImportItem[]> {
    for (const item of items) {
      if (!isFileItem(item.document)) continue;
      const { outcome, discardFileId } = await this.fileImport.process(ctx.tenantId, item.seq, item.document, step);
      const failed = outcome.status === 'failed' ? 1 : 0;
      await step(async () => {
        await this.imports.record(ctx.tenantId, importId, [outcome]);
        await ctx.progress({ processed: 1 - failed, failed, checkpoint: item.seq });
      });
      if (discardFileId) await step(() => this.files.deleteUnused(ctx.tenantId, discardFileId));
    }
    return step(() => this.imports.pending(ctx.tenantId, importId, IMPORT_BATCH));
  }
}

export type ImportJobContext = JobContext<{ importId: string }>;

function fieldsOf(error: DomainException): string[] | undefined {
  const fields = (error.details as { fields?: unknown } | undefined)?.fields;
  return Array.isArray(fields) ? fields.map(String) : undefined;
}
