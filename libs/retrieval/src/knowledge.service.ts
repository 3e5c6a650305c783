import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { DomainException, flattenValidationErrors, type Page, type TenantId } from '@arbiter/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { chunkText } from './chunker.js';
import { UpsertDocumentDto } from './dto/knowledge.dto.js';
import { KnowledgeRepository, type DocumentSummary, type NewChunk, type VectorSpace } from './knowledge.repository.js';
import { LexicalRepository } from './lexical.repository.js';
import { indexChunks } from './lexical/indexing.js';
import { LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { l2Norm } from './vector-sql.js';

export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
export const MAX_BULK_ITEMS = 1000;
const EMBED_BATCH = 64;

export type UpsertStatus = 'created' | 'updated' | 'unchanged';

export interface UpsertResult {
  status: UpsertStatus;
  document: DocumentSummary;
}

export interface BulkItemResult {
  index: number;
  filePath: string | null;
  status: UpsertStatus | 'failed';
  documentId?: string;
  chunkCount?: number;
  error?: { code?: string; message: string; fields?: string[] };
}

/** Ensures a provider vector is usable and unit-norm (seed T7): |norm − 1| < 0.01, else renormalized. */
export function unitVector(vector: readonly number[], dim: number): number[] {
  if (vector.length !== dim) throw new RetrievalException(RetrievalErrorCode.UNSUPPORTED_EMBEDDING_DIMENSION, `expected ${dim} dimensions, got ${vector.length}`);
  const norm = l2Norm(vector);
  if (!Number.isFinite(norm) || norm === 0) throw new RetrievalException(RetrievalErrorCode.UNSUPPORTED_EMBEDDING_DIMENSION, 'provider returned a zero or non-finite vector');
  return Math.abs(norm - 1) < 1e-6 ? [...vector] : vector.map((x) => x / norm);
}

@Injectable()
export class KnowledgeService {
  private readonly logger = new Logger('Knowledge');

  constructor(
    private readonly repository: KnowledgeRepository,
    private readonly settings: RetrievalSettingsService,
    private readonly lexical: LexicalRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
  ) {}

  get space(): VectorSpace {
    return { model: this.provider.id, dim: this.provider.dimension };
  }

  /** Upserts by filePath: chunk + embed outside the transaction, then replace document and chunks atomically. */
  async upsert(tenantId: TenantId, dto: UpsertDocumentDto): Promise<UpsertResult> {
    const bytes = Buffer.byteLength(dto.content, 'utf8');
    if (bytes > MAX_DOCUMENT_BYTES) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_TOO_LARGE, `${bytes} bytes`, { fields: ['content'] });
    const doc = {
      domain: dto.domain.trim(),
      filePath: dto.filePath.trim(),
      title: dto.title.trim(),
      content: dto.content,
      keywords: [...new Set((dto.keywords ?? []).map((k) => k.trim()).filter((k) => k.length > 0))],
      metadata: dto.metadata ?? {},
      contentHash: createHash('sha256').update(dto.content, 'utf8').digest('hex'),
    };
    const space = this.space;
    const unchanged = await this.repository.isUnchanged(tenantId, doc.filePath, doc, space);
    if (unchanged) return { status: 'unchanged', document: unchanged };

    const { chunkSize, chunkOverlap } = await this.settings.get(tenantId);
    const pieces = chunkText(doc.content, { chunkSize, overlap: chunkOverlap });
    if (!pieces.length) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_EMPTY, undefined, { fields: ['content'] });
    const contents = pieces.map((p) => p.content);
    const chunks = await this.embedChunks(doc.title, contents);
    const stats = await this.lexical.stats(tenantId);
    const indexed = indexChunks(doc.title, doc.keywords, contents, stats.averageLength);
    const { document, created } = await this.repository.replace(tenantId, doc, chunks, space, (em, documentId) =>
      this.lexical.replaceDocument(em, tenantId, documentId, doc.domain, indexed, LEXICAL_ANALYZER_VERSION),
    );
    this.logger.log({ msg: 'knowledge document upserted', documentId: document.id, filePath: document.filePath, chunks: chunks.length, created });
    return { status: created ? 'created' : 'updated', document };
  }

  /** Embeds `title + chunk` so a chunk keeps its document's context; vectors are checked for unit norm. */
  async embedChunks(title: string, contents: readonly string[]): Promise<NewChunk[]> {
    const out: NewChunk[] = [];
    for (let i = 0; i < contents.length; i += EMBED_BATCH) {
      const batch = contents.slice(i, i + EMBED_BATCH);
      const vectors = await this.provider.embedDocuments(batch.map((c) => `${title}\n${c}`));
      batch.forEach((content, k) => out.push({ content, embedding: unitVector(vectors[k] ?? [], this.provider.dimension) }));
    }
    return out;
  }

  /** Imports many documents; each item succeeds or fails on its own (per-item results, in order). */
  async bulk(tenantId: TenantId, items: readonly unknown[]): Promise<{ results: BulkItemResult[]; summary: Record<UpsertStatus | 'failed', number> }> {
    if (items.length > MAX_BULK_ITEMS) throw new RetrievalException(RetrievalErrorCode.INVALID_BULK_BODY, `at most ${MAX_BULK_ITEMS} documents per request, got ${items.length}`);
    const results: BulkItemResult[] = [];
    const seen = new Set<string>();
    for (const [index, raw] of items.entries()) {
      const filePath = typeof (raw as { filePath?: unknown } | null)?.filePath === 'string' ? ((raw as { filePath: string }).filePath.trim() || null) : null;
      const dto = plainToInstance(UpsertDocumentDto, raw ?? {});
      const errors = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? await validate(dto, { whitelist: true, forbidNonWhitelisted: true }) : null;
      if (errors === null || errors.length) {
        const details = errors ? flattenValidationErrors(errors) : [{ field: '', errors: ['item must be an object'] }];
        results.push({ index, filePath, status: 'failed', error: { code: 'VALIDATION_FAILED', message: details.map((d) => `${d.field}: ${d.errors.join('; ')}`).join(' | '), fields: details.map((d) => d.field) } });
        continue;
      }
      if (filePath && seen.has(filePath)) {
        results.push({ index, filePath, status: 'failed', error: { code: 'DUPLICATE_FILE_PATH', message: 'filePath appears earlier in this import', fields: ['filePath'] } });
        continue;
      }
      if (filePath) seen.add(filePath);
      try {
        const r = await this.upsert(tenantId, dto);
        results.push({ index, filePath: r.document.filePath, status: r.status, documentId: r.document.id, chunkCount: r.document.chunkCount });
      } catch (error) {
        if (!(error instanceof DomainException)) throw error;
        const fields = (error.details as { fields?: string[] } | undefined)?.fields;
        results.push({ index, filePath, status: 'failed', error: { code: error.code, message: error.message, ...(fields ? { fields } : {}) } });
      }
    }
    const summary = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    for (const r of results) summary[r.status]++;
    return { results, summary };
  }

  list(tenantId: TenantId, options: { domain?: string; cursor?: string; limit?: number }): Promise<Page<DocumentSummary>> {
    return this.repository.list(tenantId, { ...options, limit: options.limit ?? 50 });
  }

  async get(tenantId: TenantId, id: string): Promise<DocumentSummary & { content: string }> {
    const doc = await this.repository.get(tenantId, id);
    if (!doc) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, id);
    return doc;
  }

  async delete(tenantId: TenantId, id: string): Promise<void> {
    if (!(await this.repository.delete(tenantId, id, (em) => this.lexical.removeDocument(em, tenantId, id)))) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, id);
  }
}
