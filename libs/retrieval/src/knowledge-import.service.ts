import { Injectable } from '@nestjs/common';
import { type BulkItem, DomainException, type TenantId } from '@arbiter/common';
import { BackgroundGate } from '@arbiter/database';
import { JobHandler, JobsService, type JobContext, type JobRunner, type JobRunStatus } from '@arbiter/jobs';
import { IMPORT_JOB } from './knowledge-import.job-name.js';
import { fileView, type UploadedFileView } from './files/knowledge-files.service.js';
import { KnowledgeImportRepository, type ImportItemOutcome, type ImportSummary, type PendingImportItem } from './knowledge-import.repository.js';
import { FileImportProcessor, type ImportStep, isFileItem } from './files/file-import.processor.js';
import { KnowledgeFilesRepository } from './files/knowledge-files.repository.js';
import { AuditLog } from '@arbiter/tenancy';
import { type BulkItemResult, checkBulkItems, KnowledgeService } from './knowledge.service.js';
import type { NewDocument } from './knowledge.repository.js';
import type { UpsertDocumentDto } from './dto/knowledge.dto.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';

export { IMPORT_JOB };
/** Documents per import request (the body limit, BODY_LIMIT_BYTES, also bounds it). */
export const MAX_IMPORT_ITEMS = 10_000;
/** Documents the import job reads per step (one `upsertMany`, then the outcomes and progress). */
export const IMPORT_BATCH = 20;
/**
 * Chunks per write transaction of an import (docs/hot-paths.md "Imports: foreground first"): on the embedded
 * database each chunk costs ~4–5 ms of HNSW maintenance, so a transaction of a few chunks holds the database
 * ~30 ms, the longest a neighbour's request waits behind the import. A document is never split.
 */
export const IMPORT_TRANSACTION_CHUNKS = 4;
/** Failed items an import's status lists. */
const FAILURES_SHOWN = 100;

export interface ImportStarted {
  importId: string;
  jobId: string | null;
  total: number;
  queued: number;
  failed: BulkItemResult[];
}

export interface ImportStatus {
  importId: string;
  jobId: string | null;
  status: JobRunStatus;
  total: number;
  done: number;
  counts: ImportSummary['counts'];
  failures: BulkItemResult[];
  /** An import of uploaded files: every file with its outcome (docs/documents.md "Upload"); absent for JSON documents. */
  files?: UploadedFileView[];
  createdAt: Date;
}

/**
 * Large imports as a resumable job (README, Faults and outages): the request validates and stores the
 * documents and answers at once; the `retrieval.import` job writes them in batches of {@link IMPORT_BATCH}
 * with progress, and after a crash resumes at the first item without an outcome (writes are idempotent by
 * `filePath` and content hash, so an item written just before a crash comes out `unchanged`).
 */
@Injectable()
export class KnowledgeImportService {
  constructor(
    private readonly imports: KnowledgeImportRepository,
    private readonly jobs: JobsService,
    private readonly files: KnowledgeFilesRepository,
    private readonly audit: AuditLog,
  ) {}

  /** `items`: validated by `BulkBody` (1 to {@link MAX_IMPORT_ITEMS}, checked there before any item is validated). */
  async start(tenantId: TenantId, items: readonly BulkItem<UpsertDocumentDto>[]): Promise<ImportStarted> {
    const { results, valid } = await checkBulkItems(items);
    const documents = new Map(valid.map((v) => [v.index, v.doc]));
    const rows = results.map((failed, seq) => ({
      seq,
      filePath: failed?.filePath ?? documents.get(seq)?.filePath ?? null,
      document: documents.get(seq) ?? null,
      failed,
    }));
    const failed = results.filter((r): r is BulkItemResult => r !== null);
    // The request's acceptance, with its counts, is the audit entry (docs/http-edge.md "Audit log"); the job's writes follow from it.
    const { id } = await this.imports.create(tenantId, rows, (tx, importId) =>
      this.audit.record(tx, tenantId, {
        action: 'import',
        resourceType: 'knowledge_import',
        resourceId: importId,
        label: `${items.length} documents`,
        summary: { total: items.length, queued: valid.length, failed: failed.length, filePaths: valid.map((v) => v.doc.filePath) },
      }),
    );
    // Enqueued after the import committed, so the job never runs before its items exist.
    let jobId: string | null;
    try {
      jobId = valid.length ? ((await this.jobs.enqueue(tenantId, IMPORT_JOB, { importId: id }))?.id ?? null) : null;
    } catch (error) {
      await this.imports.remove(tenantId, id); // a refused request leaves nothing behind
      throw error;
    }
    if (jobId) await this.imports.attachJob(tenantId, id, jobId);
    return { importId: id, jobId, total: items.length, queued: valid.length, failed };
  }

  async status(tenantId: TenantId, importId: string): Promise<ImportStatus> {
    const summary = await this.imports.summary(tenantId, importId);
    if (!summary) throw new RetrievalException(RetrievalErrorCode.IMPORT_NOT_FOUND, importId);
    const run = summary.jobId ? await this.jobs.get(tenantId, summary.jobId) : null;
    const failures = summary.counts.failed ? await this.imports.failures(tenantId, importId, FAILURES_SHOWN) : [];
    const files = (await this.files.isFileImport(tenantId, importId)) ? (await this.files.items(tenantId, importId)).map(fileView) : undefined;
    return {
      importId: summary.id,
      jobId: summary.jobId,
      // An import whose every item failed validation has no job: it is finished.
      status: run?.status ?? 'succeeded',
      total: summary.total,
      done: summary.total - summary.counts.pending,
      counts: summary.counts,
      failures,
      ...(files ? { files } : {}),
      createdAt: summary.createdAt,
    };
  }
}

/** `retrieval.import`: writes a stored import's pending items in batches. */
@Injectable()
@JobHandler(IMPORT_JOB)
export class KnowledgeImportJob implements JobRunner<typeof IMPORT_JOB> {
  constructor(
    private readonly imports: KnowledgeImportRepository,
    private readonly knowledge: KnowledgeService,
    private readonly gate: BackgroundGate,
    private readonly fileImport: FileImportProcessor,
    private readonly files: KnowledgeFilesRepository,
  ) {}

  /**
   * Every database step — the batch read, the reads of `upsertMany`, each small write transaction, the
   * outcomes with the progress — is one turn of the tenant at the {@link BackgroundGate}: it starts when
   * requests leave the database a pause (or the import has waited its share), so requests of every tenant
   * run between the import's steps instead of behind the whole batch (docs/hot-paths.md "Imports: foreground first").
   */
  async run(ctx: ImportJobContext): Promise<void> {
    const { importId } = ctx.payload;
    const step = <T>(work: () => Promise<T>): Promise<T> => this.gate.run(ctx.tenantId, work);
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
  private async runFiles(ctx: ImportJobContext, importId: string, items: readonly PendingImportItem[], step: ImportStep): Promise<PendingImportItem[]> {
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
