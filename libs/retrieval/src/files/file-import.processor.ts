import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@arbiter/config';
import { DomainException, type TenantId } from '@arbiter/common';
import { ExtractionError, ExtractionErrorCode, type ExtractedDocument, ExtractionRunner, TesseractOcr } from '@arbiter/documents';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import type { ImportItemOutcome } from '../knowledge-import.repository.js';
import type { NewDocument } from '../knowledge.repository.js';
import { embeddingKey, KnowledgeService, type UpsertResult } from '../knowledge.service.js';
import { GroupWriteService } from '../group-write.service.js';
import { RetrievalSettingsService } from '../retrieval-settings.service.js';
import { documentsFromFile, type FileDocumentDraft } from './file-documents.js';
import { KnowledgeFilesRepository, type FileItemPayload, type FileOutcomeDetail, type UploadedDocument } from './knowledge-files.repository.js';
import { extractionLimitsOf } from './knowledge-files.service.js';
import type { BackgroundStep } from '@arbiter/database';

export interface FileImportResult {
  outcome: ImportItemOutcome;
  /** The uploaded copy no document took (unchanged or failed): deleted once the outcome is recorded. */
  discardFileId: string | null;
}

/** Whether an import item holds an uploaded file (a file import) rather than a JSON document. */
export function isFileItem(document: unknown): document is FileItemPayload {
  return typeof document === 'object' && document !== null && typeof (document as FileItemPayload).fileId === 'string';
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The earlier upload is this one again: the same bytes, uploaded with the same domain, keywords and metadata. */
function isUnchanged(earlier: readonly UploadedDocument[], sha256: string, payload: FileItemPayload): boolean {
  return (
    earlier.length > 0 &&
    earlier.every((d) => d.sha256 === sha256 && d.domain === payload.domain && sameJson(d.metadata, payload.metadata)) &&
    // Keywords: a sheet row adds its similar questions to the upload's, so only the upload's part must match.
    earlier.every((d) => payload.keywords.every((k) => d.keywords.includes(k)))
  );
}

/**
 * One uploaded file of a file import (docs/documents.md "Upload"): its bytes are read from the database,
 * extracted on an extraction thread (off the event loop, with the per-file time limit), chunked by their
 * structure, embedded (reusing the vector of every chunk whose text a re-upload did not change) and written:
 * a new file's documents in groups, hidden until all are whole; the documents replacing an earlier upload's in one
 * transaction. The documents of an earlier upload that the file no longer makes (rows gone from
 * an FAQ sheet) are deleted after it.
 */
@Injectable()
export class FileImportProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('FileImport');
  private readonly runner: ExtractionRunner;
  private readonly ocr: TesseractOcr;

  constructor(
    private readonly files: KnowledgeFilesRepository,
    private readonly knowledge: KnowledgeService,
    private readonly groupWrite: GroupWriteService,
    private readonly settings: RetrievalSettingsService,
    private readonly config: AppConfig,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {
    this.ocr = new TesseractOcr(config.ocr);
    this.runner = new ExtractionRunner({ poolSize: config.uploads.parseThreads, name: 'arbiter-extraction', ocr: this.ocr });
  }

  /** OCR_ENABLED=on: boot fails where tesseract or pdftoppm is missing; `auto` detects on the first scanned page. */
  async onModuleInit(): Promise<void> {
    if (this.config.ocr.mode !== 'on') return;
    const ocr = await this.ocr.availability();
    if (!ocr.available) throw new Error(`OCR_ENABLED=on, but: ${ocr.reason}`);
    this.logger.log({ msg: 'OCR available', languages: ocr.languages, missing: ocr.missing });
  }

  async onModuleDestroy(): Promise<void> {
    await this.runner.close();
    this.ocr.close();
  }

  async process(tenantId: TenantId, seq: number, payload: FileItemPayload, step: BackgroundStep): Promise<FileImportResult> {
    const failed = (code: string, message: string, mediaType: string | null): FileImportResult => ({
      outcome: { seq, status: 'failed', error: { code, message }, ...(mediaType ? { detail: { mediaType } } : {}) },
      discardFileId: payload.fileId,
    });
    const [file, earlier] = await step(
      async () => [await this.files.read(tenantId, payload.fileId), await this.files.documentsOfFile(tenantId, payload.fileName)] as const,
    );
    if (!file) return failed('FILE_MISSING', 'The uploaded file is no longer stored.', null);
    if (isUnchanged(earlier, file.sha256, payload)) {
      const main = earlier.find((d) => d.filePath === payload.fileName) ?? earlier[0];
      return { outcome: { seq, status: 'unchanged', documentId: main.id }, discardFileId: payload.fileId };
    }
    let extracted: ExtractedDocument;
    try {
      // `read` assembled the bytes in an ArrayBuffer of their own: the runner transfers it to the thread without a copy
      // (a copy of 50 MiB here held the event loop for 1.1 s, docs/hot-paths.md "A large upload and the event loop").
      extracted = await this.runner.extract(file.bytes, payload.fileName, extractionLimitsOf(this.config));
    } catch (error) {
      if (error instanceof ExtractionError) return failed(error.code, error.message, file.mediaType);
      throw error;
    }
    const { chunkSize } = await step(() => this.settings.get(tenantId));
    const drafts = documentsFromFile(extracted, payload.fileName, payload, chunkSize).filter((d) => d.chunks.length > 0);
    if (!drafts.length) return failed(ExtractionErrorCode.NoText, 'The file holds no text to index.', extracted.mediaType);
    const space = { model: this.provider.id, dim: this.provider.dimension };
    const vectors = await step(() =>
      this.files.vectorsOf(
        tenantId,
        earlier.map((d) => d.id),
        space,
      ),
    );
    const reuse = new Map(vectors.map((v) => [embeddingKey(v.title, v.content, v.section), v.vector]));
    const docs = drafts.map((d) => this.newDocument(d, payload, file.sha256, extracted));
    const written =
      (await this.writeNew(tenantId, earlier, drafts, docs, step)) ??
      (await this.knowledge.upsertMany(tenantId, docs, {
        step,
        // A file's documents replace the earlier upload's in one transaction: a lookup sees the old upload or the new one, never a mix.
        groupChunks: Number.MAX_SAFE_INTEGER,
        prepared: new Map(drafts.map((d) => [d.filePath, d.chunks])),
        reuse,
      }));
    const results = written.filter((r): r is UpsertResult => !(r instanceof DomainException));
    const errors = written.filter((r): r is DomainException => r instanceof DomainException);
    if (!results.length) return failed(errors[0]?.code ?? 'WRITE_FAILED', errors[0]?.message ?? 'The file could not be written.', extracted.mediaType);
    const kept = new Set(docs.map((d) => d.filePath));
    for (const stale of earlier.filter((d) => !kept.has(d.filePath))) await this.knowledge.delete(tenantId, stale.id, { step, sweep: false });
    const chunks = drafts.reduce((n, d) => n + d.chunks.length, 0);
    const reused = drafts.reduce((n, d) => n + d.chunks.filter((c) => reuse.has(embeddingKey(d.title, c.content, c.section))).length, 0);
    const detail: FileOutcomeDetail = {
      mediaType: extracted.mediaType,
      pageCount: extracted.pageCount ?? null,
      documents: results.length,
      chunks,
      embeddedChunks: chunks - reused,
      ...(extracted.ocrPages?.length ? { ocrPages: extracted.ocrPages } : {}),
      warnings: [...extracted.warnings, ...errors.map((e) => `${e.code}: ${e.message}`)].slice(0, 20),
    };
    const status = results.every((r) => r.status === 'created') ? 'created' : results.every((r) => r.status === 'unchanged') ? 'unchanged' : 'updated';
    const main = results.find((r) => r.document.filePath === payload.fileName) ?? results[0];
    this.logger.log({ msg: 'file imported', fileName: payload.fileName, status, ...detail, warnings: detail.warnings.length });
    return { outcome: { seq, status, documentId: main.document.id, detail: { ...detail } }, discardFileId: null };
  }

  /**
   * A file that replaces no earlier upload is written in groups (`GroupWriteService.writeInGroups`, docs/hot-paths.md
   * "A large file's write in groups"): its documents hidden until all are whole, without holding the embedded database
   * for the whole write. Null when it does not apply, or when a document took one of its paths meanwhile.
   */
  private async writeNew(
    tenantId: TenantId,
    earlier: readonly UploadedDocument[],
    drafts: readonly FileDocumentDraft[],
    docs: readonly NewDocument[],
    step: BackgroundStep,
  ): Promise<(UpsertResult | DomainException)[] | null> {
    if (earlier.length > 0) return null;
    try {
      return await this.groupWrite.writeInGroups(
        tenantId,
        docs.map((doc, k) => ({ doc, drafts: drafts[k].chunks })),
        { step },
      );
    } catch (error) {
      if (error instanceof DomainException) return docs.map(() => error);
      throw error;
    }
  }

  private newDocument(draft: FileDocumentDraft, payload: FileItemPayload, sha256: string, extracted: ExtractedDocument): NewDocument {
    return {
      domain: payload.domain,
      filePath: draft.filePath,
      title: draft.title,
      content: draft.content,
      keywords: draft.keywords,
      metadata: payload.metadata,
      // The file's hash is part of it: another upload of the file is never mistaken for this one (docs/documents.md "Re-upload").
      contentHash: createHash('sha256').update(`${sha256}\n${draft.content}`, 'utf8').digest('hex'),
      source: { fileId: payload.fileId, mediaType: extracted.mediaType, pageCount: extracted.pageCount ?? null },
    };
  }
}
