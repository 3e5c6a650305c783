import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@arbiter/config';
import { invalidRequest, isMultipartBody, type MultipartFile, sha256Sliced, type TenantId } from '@arbiter/common';
import {
  DEFAULT_EXTRACTION_LIMITS,
  ExtractionError,
  ExtractionErrorCode,
  extractionErrorStatus,
  type ExtractionLimits,
  sniffDocument,
} from '@arbiter/documents';
import { JobsService } from '@arbiter/jobs';
import { canonicalJson, parseIdempotencyKey } from '@arbiter/sessions';
import { AuditLog } from '@arbiter/tenancy';
import { KnowledgeImportRepository } from '../knowledge-import.repository.js';
import { IMPORT_JOB } from '../knowledge-import.job-name.js';
import { RetrievalErrorCode, RetrievalException } from '../retrieval.exception.js';
import { KnowledgeFilesRepository, type FileError, type NewUpload, type StoredFileItem } from './knowledge-files.repository.js';
import { checkUploadForm } from './upload-form.js';

/** One file of an upload as the answer lists it. */
export interface UploadedFileView {
  fileName: string;
  /** Sniffed from the bytes; null for a file refused before its type was known. */
  mediaType: string | null;
  /** `queued` until the import job has read it; `refused` at the door; then the job's outcome. */
  status: 'queued' | 'refused' | 'created' | 'updated' | 'unchanged' | 'failed';
  documentId?: string;
  error?: FileError;
}

export interface UploadStarted {
  importId: string;
  jobId: string | null;
  files: UploadedFileView[];
}

/** The limits one file's extraction runs under (the config class, docs/documents.md "Upload"). */
export function extractionLimitsOf(config: AppConfig): ExtractionLimits {
  const uploads = config.uploads;
  return { ...DEFAULT_EXTRACTION_LIMITS, maxFileBytes: uploads.maxFileBytes, maxPdfPages: uploads.maxPdfPages, timeoutMs: uploads.parseTimeoutMs };
}

/** The answer's view of a stored file item. */
export function fileView(item: StoredFileItem): UploadedFileView {
  const base = { fileName: item.fileName, mediaType: item.mediaType };
  if (item.status === null) return { ...base, status: 'queued' };
  if (item.status === 'failed') return { ...base, status: item.detail || item.mediaType ? 'failed' : 'refused', ...(item.error ? { error: item.error } : {}) };
  return { ...base, status: item.status, ...(item.documentId ? { documentId: item.documentId } : {}) };
}

/** The code an upload answers with when every file was refused: one reason for all, else 400. */
function refusalCode(refused: readonly FileError[]): RetrievalErrorCode {
  const statuses = new Set(refused.map((r) => extractionErrorStatus(r.code as ExtractionErrorCode)));
  if (statuses.size === 1 && statuses.has(415)) return RetrievalErrorCode.FILES_UNSUPPORTED;
  if (statuses.size === 1 && statuses.has(413)) return RetrievalErrorCode.FILES_TOO_LARGE;
  return RetrievalErrorCode.FILES_REFUSED;
}

/**
 * Uploads (docs/documents.md "Upload"): the door checks every file (size, empty, type sniffed from the bytes),
 * stores the accepted files' bytes with an import in one transaction and queues the `retrieval.import` job,
 * which extracts, chunks, embeds and indexes them. A request whose every file is refused stores nothing.
 */
@Injectable()
export class KnowledgeFilesService {
  private readonly logger = new Logger('KnowledgeFiles');

  constructor(
    private readonly files: KnowledgeFilesRepository,
    private readonly imports: KnowledgeImportRepository,
    private readonly jobs: JobsService,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async upload(tenantId: TenantId, body: unknown, rawIdempotencyKey: string | undefined): Promise<UploadStarted> {
    const idempotencyKey = parseIdempotencyKey(rawIdempotencyKey);
    if (idempotencyKey === null) throw new RetrievalException(RetrievalErrorCode.INVALID_IDEMPOTENCY_KEY);
    if (!isMultipartBody(body)) throw new RetrievalException(RetrievalErrorCode.UPLOAD_NOT_MULTIPART);
    const checked = checkUploadForm(body);
    if (Array.isArray(checked)) throw invalidRequest(checked);
    const limits = extractionLimitsOf(this.config);
    const upload: NewUpload = { files: [], refused: [], form: checked.form, idempotencyKey: idempotencyKey ?? null, requestHash: '' };
    const hashes: { name: string; sha256: string | null; size: number }[] = [];
    for (const [seq, file] of checked.files.entries()) {
      // Hashed in slices: a 50 MiB file is tens of milliseconds of hashing on the API's thread.
      const sha256 = file.bytes ? await sha256Sliced(file.bytes) : null;
      hashes.push({ name: file.fileName, sha256, size: file.size });
      const door = await this.atTheDoor(file, limits);
      if ('error' in door) upload.refused.push({ seq, fileName: file.fileName, error: door.error });
      else upload.files.push({ seq, fileName: file.fileName, mediaType: door.mediaType, sha256: sha256 as string, bytes: file.bytes as Buffer });
    }
    upload.requestHash = createHash('sha256')
      .update(canonicalJson({ form: checked.form, files: hashes }))
      .digest('hex');
    if (idempotencyKey) {
      const earlier = await this.repeated(tenantId, idempotencyKey, upload.requestHash);
      if (earlier) return earlier;
    }
    if (!upload.files.length) {
      const errors = upload.refused.map((r) => r.error);
      throw new RetrievalException(refusalCode(errors), undefined, {
        files: upload.refused.map((r) => ({ fileName: r.fileName, status: 'refused', error: r.error })),
        fields: upload.refused.map((r) => `file[${r.seq}]`),
      });
    }
    const stored = await this.files.store(tenantId, upload, (tx, importId) =>
      this.audit.record(tx, tenantId, {
        action: 'upload',
        resourceType: 'knowledge_file',
        resourceId: importId,
        label: upload.files.length === 1 ? upload.files[0]!.fileName : `${upload.files.length} files`,
        summary: {
          accepted: upload.files.length,
          refused: upload.refused.length,
          files: upload.files.map((f) => ({ fileName: f.fileName, mediaType: f.mediaType, bytes: f.bytes.length })),
          refusedFiles: upload.refused.map((r) => ({ fileName: r.fileName, code: r.error.code })),
        },
      }),
    );
    if (!stored) {
      // Another request with the same key stored its upload first: answer as it was answered.
      const earlier = await this.repeated(tenantId, idempotencyKey as string, upload.requestHash);
      if (earlier) return earlier;
      throw new RetrievalException(RetrievalErrorCode.IDEMPOTENCY_KEY_REUSED);
    }
    let jobId: string | null;
    try {
      jobId = (await this.jobs.enqueue(tenantId, IMPORT_JOB, { importId: stored.importId }))?.id ?? null;
    } catch (error) {
      // A refused request leaves nothing behind: the import, its items and its files go.
      await this.removeUpload(tenantId, stored.importId);
      throw error;
    }
    if (jobId) await this.imports.attachJob(tenantId, stored.importId, jobId);
    this.logger.log({ msg: 'files uploaded', importId: stored.importId, accepted: upload.files.length, refused: upload.refused.length });
    return { importId: stored.importId, jobId, files: (await this.files.items(tenantId, stored.importId)).map(fileView) };
  }

  /** The document's original file, as uploaded. */
  async download(tenantId: TenantId, documentId: string): Promise<{ fileName: string; mediaType: string; bytes: Buffer }> {
    const found = await this.files.fileOfDocument(tenantId, documentId);
    if (!found.exists) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, documentId);
    if (!found.file) throw new RetrievalException(RetrievalErrorCode.FILE_NOT_FOUND, documentId);
    return found.file;
  }

  /** Size, emptiness and type, from the bytes (never the extension or the declared type). */
  private async atTheDoor(file: MultipartFile, limits: ExtractionLimits): Promise<{ mediaType: string } | { error: FileError }> {
    if (file.tooLarge || !file.bytes)
      return { error: { code: ExtractionErrorCode.FileTooLarge, message: `The file is larger than ${limits.maxFileBytes} bytes (UPLOAD_MAX_FILE_BYTES).` } };
    try {
      const sniffed = await sniffDocument(file.bytes, file.fileName, limits);
      return { mediaType: sniffed.mediaType };
    } catch (error) {
      if (error instanceof ExtractionError) return { error: { code: error.code, message: error.message } };
      throw error;
    }
  }

  /** The first answer to an upload sent again with its Idempotency-Key; 422 when the key came with other files. */
  private async repeated(tenantId: TenantId, key: string, requestHash: string): Promise<UploadStarted | null> {
    const earlier = await this.files.findByIdempotencyKey(tenantId, key);
    if (!earlier) return null;
    if (earlier.source !== 'files' || earlier.requestHash !== requestHash) throw new RetrievalException(RetrievalErrorCode.IDEMPOTENCY_KEY_REUSED);
    return { importId: earlier.importId, jobId: earlier.jobId, files: (await this.files.items(tenantId, earlier.importId)).map(fileView) };
  }

  private async removeUpload(tenantId: TenantId, importId: string): Promise<void> {
    const items = await this.files.pendingFileIds(tenantId, importId);
    await this.imports.remove(tenantId, importId);
    for (const fileId of items) await this.files.deleteUnused(tenantId, fileId);
  }
}
