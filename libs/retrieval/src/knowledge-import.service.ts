import { Injectable } from '@nestjs/common';
import type { BulkItem, TenantId } from '@arbiter/common';
import { JobsService, type JobRunStatus } from '@arbiter/jobs';
import { IMPORT_JOB } from './knowledge-import.job-name.js';
import { fileView, type UploadedFileView } from './files/knowledge-files.service.js';
import { KnowledgeImportRepository, type ImportSummary } from './knowledge-import.repository.js';
import { KnowledgeFilesRepository } from './files/knowledge-files.repository.js';
import { AuditLog } from '@arbiter/tenancy';
import { type BulkItemResult, checkBulkItems } from './knowledge.service.js';
import type { UpsertDocumentDto } from './dto/knowledge.dto.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';

/** Documents per import request (the body limit, BODY_LIMIT_BYTES, also bounds it). */
export const MAX_IMPORT_ITEMS = 10_000;
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
 * documents and answers at once; the `retrieval.import` job writes them in batches of `IMPORT_BATCH`
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
