import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { type BulkItem, DomainException, mapSliced, type Page, type TenantId, TimeSlice } from '@arbiter/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { type BackgroundStep, runStepNow, type Tx } from '@arbiter/database';
import { chunkText } from './chunker.js';
import { UpsertDocumentDto } from './dto/knowledge.dto.js';
import {
  KnowledgeRepository,
  type ChunkLocation,
  type DocumentRef,
  type DocumentSummary,
  type NewChunk,
  type NewDocument,
  type VectorSpace,
} from './knowledge.repository.js';
import { HiddenDocuments } from './hidden-documents.js';
import { GROUP_WRITE_CHUNKS } from './write-groups.js';
import { LexicalRepository } from './lexical.repository.js';
import { chunkContextText } from './lexical/chunk-context.js';
import { analyzeHeading, type IndexedChunk, indexChunk, lengthNorm } from './lexical/indexing.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION, warmAnalyzer } from './lexical/text-analyzer.js';
import { bilingualDictionary } from './lexical/bilingual-dictionary.js';
import { AuditLog } from '@arbiter/tenancy';
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
  if (vector.length !== dim)
    throw new RetrievalException(RetrievalErrorCode.UNSUPPORTED_EMBEDDING_DIMENSION, `expected ${dim} dimensions, got ${vector.length}`);
  const norm = l2Norm(vector);
  if (!Number.isFinite(norm) || norm === 0)
    throw new RetrievalException(RetrievalErrorCode.UNSUPPORTED_EMBEDDING_DIMENSION, 'provider returned a zero or non-finite vector');
  return Math.abs(norm - 1) < 1e-6 ? [...vector] : vector.map((x) => x / norm);
}

/** Chunks written per transaction by a bulk upsert (multi-row statements; a few MB of vectors). */
const WRITE_GROUP_CHUNKS = 1000;

/** How `upsertMany` writes: transaction size, and what each write transaction runs inside. */
export interface UpsertManyOptions {
  /** A transaction is closed once it holds this many chunks (a document is never split). Default {@link WRITE_GROUP_CHUNKS}. */
  groupChunks?: number;
  /**
   * Runs each database step (the reads up front, each write transaction) — background work passes its
   * `BackgroundGate` turn here, so requests run between the steps (docs/hot-paths.md "Imports: foreground first").
   */
  step?: BackgroundStep;
  /**
   * Chunks already cut, by file path: documents made from files arrive chunked by their structure, with
   * page and section (docs/documents.md "Chunks"); the others are cut by `chunkText`.
   */
  prepared?: ReadonlyMap<string, readonly ChunkDraft[]>;
  /** Vectors to reuse instead of embedding again, by {@link embeddingKey} (a re-upload re-embeds only chunks whose text changed). */
  reuse?: ReadonlyMap<string, readonly number[]>;
  /**
   * Writes the audit entry of each write transaction in it, given what it wrote (an operator's request,
   * docs/http-edge.md "Audit log"; an import's job does not pass one: its acceptance was recorded).
   */
  record?: (tx: Tx, written: readonly { document: DocumentSummary; created: boolean }[]) => Promise<void>;
}

/** A chunk's text with where it came from, before it is embedded. */
export interface ChunkDraft extends ChunkLocation {
  content: string;
}

/**
 * What a chunk's vector depends on: the document's title, the chunk's section path and its text (see
 * {@link KnowledgeService.embedChunks}, docs/retrieval.md "Chunk context").
 */
export function embeddingKey(title: string, content: string, section?: readonly string[] | null): string {
  return `${title}\n${chunkContextText(content, section)}`;
}

interface Pending {
  i: number;
  doc: NewDocument;
  chunks: NewChunk[];
  indexed: IndexedChunk[];
}

/** The stored form of a valid upsert body (trimmed, keywords de-duplicated, hashed); 400 above 2 MiB. */
export function normalizeDocument(dto: UpsertDocumentDto): NewDocument {
  const bytes = Buffer.byteLength(dto.content, 'utf8');
  if (bytes > MAX_DOCUMENT_BYTES) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_TOO_LARGE, `${bytes} bytes`, { fields: ['content'] });
  return {
    domain: dto.domain.trim(),
    filePath: dto.filePath.trim(),
    title: dto.title.trim(),
    content: dto.content,
    keywords: [...new Set((dto.keywords ?? []).map((k) => k.trim()).filter((k) => k.length > 0))],
    metadata: dto.metadata ?? {},
    contentHash: createHash('sha256').update(dto.content, 'utf8').digest('hex'),
  };
}

/**
 * Normalises the validated items of a bulk body or an import (`BulkBody`, docs/http-edge.md "Bodies"):
 * per item a failed result (validation, a `filePath` repeated within the body, too large) or a document to
 * write. `results` holds null where valid.
 */
export async function checkBulkItems(
  items: readonly BulkItem<UpsertDocumentDto>[],
): Promise<{ results: (BulkItemResult | null)[]; valid: { index: number; doc: NewDocument }[] }> {
  const results: (BulkItemResult | null)[] = [];
  const seen = new Set<string>();
  const valid: { index: number; doc: NewDocument }[] = [];
  // Hashing thousands of documents of up to 2 MiB is long work: yield between items.
  const slice = new TimeSlice();
  for (const item of items) {
    await slice.pause();
    const { index, raw } = item;
    const filePath = typeof (raw as { filePath?: unknown } | null)?.filePath === 'string' ? (raw as { filePath: string }).filePath.trim() || null : null;
    if (item.errors) {
      results.push({
        index,
        filePath,
        status: 'failed',
        error: {
          code: 'VALIDATION_FAILED',
          message: item.errors.map((d) => `${d.field}: ${d.errors.join('; ')}`).join(' | '),
          fields: item.errors.map((d) => d.field),
        },
      });
      continue;
    }
    if (filePath && seen.has(filePath)) {
      results.push({
        index,
        filePath,
        status: 'failed',
        error: { code: 'DUPLICATE_FILE_PATH', message: 'filePath appears earlier in this import', fields: ['filePath'] },
      });
      continue;
    }
    if (filePath) seen.add(filePath);
    try {
      valid.push({ index, doc: normalizeDocument(item.value) });
      results.push(null);
    } catch (error) {
      results.push(failedItem(index, filePath, error));
    }
  }
  return { results, valid };
}

function failedItem(index: number, filePath: string | null, error: unknown): BulkItemResult {
  if (!(error instanceof DomainException)) throw error;
  const fields = (error.details as { fields?: string[] } | undefined)?.fields;
  return { index, filePath, status: 'failed', error: { code: error.code, message: error.message, ...(fields ? { fields } : {}) } };
}

@Injectable()
export class KnowledgeService implements OnModuleInit {
  private readonly logger = new Logger('Knowledge');
  /** Removal of hidden documents in groups: a deleted document's, and those a write in groups did not finish. */
  readonly hidden: HiddenDocuments;

  /**
   * The analyzer's and the cross-language dictionaries load at boot, not inside the first import or
   * lookup (README, Faults and outages; docs/retrieval.md "Cross-language retrieval").
   */
  onModuleInit(): void {
    warmAnalyzer();
    bilingualDictionary();
  }

  constructor(
    private readonly repository: KnowledgeRepository,
    private readonly settings: RetrievalSettingsService,
    private readonly lexical: LexicalRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly audit: AuditLog,
  ) {
    this.hidden = new HiddenDocuments(repository, lexical, this.logger);
  }

  get space(): VectorSpace {
    return { model: this.provider.id, dim: this.provider.dimension };
  }

  /** Upserts by filePath: chunk + embed outside the transaction, then replace document and chunks atomically. */
  async upsert(tenantId: TenantId, dto: UpsertDocumentDto): Promise<UpsertResult> {
    const [result] = await this.upsertMany(tenantId, [normalizeDocument(dto)], {
      record: async (tx, written) => {
        for (const { document, created } of written)
          await this.audit.record(tx, tenantId, {
            action: created ? 'create' : 'update',
            resourceType: 'knowledge_document',
            resourceId: document.id,
            label: document.title,
            summary: { filePath: document.filePath, domain: document.domain, chunkCount: document.chunkCount, version: document.version },
          });
      },
    });
    if (result instanceof DomainException) throw result;
    return result;
  }

  /**
   * Upserts documents (distinct file paths): one query finds the unchanged ones, the rest are chunked,
   * embedded and indexed outside any transaction, then written in groups of {@link WRITE_GROUP_CHUNKS}
   * chunks, each group one transaction of multi-row statements. A group the database refuses is
   * retried document by document, so one bad document fails alone. Returns, in order, each document's
   * result or its domain error.
   */
  async upsertMany(tenantId: TenantId, docs: readonly NewDocument[], options: UpsertManyOptions = {}): Promise<(UpsertResult | DomainException)[]> {
    const space = this.space;
    const step = options.step ?? runStepNow;
    const groupLimit = options.groupChunks ?? WRITE_GROUP_CHUNKS;
    const { unchanged, chunkSize, chunkOverlap, stats } = await step(async () => ({
      unchanged: await this.repository.unchanged(tenantId, docs, space),
      ...(await this.settings.get(tenantId)),
      stats: await this.lexical.stats(tenantId),
    }));
    const out: (UpsertResult | DomainException | undefined)[] = new Array(docs.length);
    let group: Pending[] = [];
    let groupChunks = 0;
    // A group is written while the next one is embedded: the database works on the other core.
    let writing: Promise<void> = Promise.resolve();
    for (const [i, doc] of docs.entries()) {
      const same = unchanged.get(doc.filePath);
      if (same) {
        out[i] = { status: 'unchanged', document: same };
        continue;
      }
      const drafts: readonly ChunkDraft[] =
        options.prepared?.get(doc.filePath) ?? chunkText(doc.content, { chunkSize, overlap: chunkOverlap }).map((p) => ({ content: p.content }));
      if (!drafts.length) {
        out[i] = new RetrievalException(RetrievalErrorCode.DOCUMENT_EMPTY, undefined, { fields: ['content'] });
        continue;
      }
      const { chunks, indexed } = await this.prepare(doc, drafts, options.reuse, stats.averageLength);
      group.push({ i, doc, chunks, indexed });
      groupChunks += chunks.length;
      if (groupChunks >= groupLimit) {
        await writing;
        writing = this.write(tenantId, group, out, step, options.record);
        // Keep a rejection from surfacing as unhandled before it is awaited below.
        writing.catch(() => undefined);
        group = [];
        groupChunks = 0;
        // CPU-bound embedding of a large import must not hold the event loop for the whole request.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await writing;
    await this.write(tenantId, group, out, step, options.record);
    return out as (UpsertResult | DomainException)[];
  }

  /**
   * A document's chunks embedded (reusing `reuse`'s vectors) and analysed for the lexical index, with its section's
   * headings (docs/retrieval.md "Chunk context"); `averageLength`: the tenant's, for the length norm.
   */
  async prepare(
    doc: NewDocument,
    drafts: readonly ChunkDraft[],
    reuse: ReadonlyMap<string, readonly number[]> | undefined,
    averageLength: number,
  ): Promise<{ chunks: NewChunk[]; indexed: IndexedChunk[] }> {
    const contents = drafts.map((d) => chunkContextText(d.content, d.section));
    const chunks = await this.embedChunks(doc.title, drafts, reuse);
    // Analysis is CPU work on this thread: paced like the embedding.
    const bodies = await mapSliced(contents, (c) => analyzeText(c));
    const heading = analyzeHeading(doc.title, doc.keywords);
    const avg = lengthNorm(heading, bodies, averageLength);
    const indexed = await mapSliced(bodies, (body, k) => indexChunk(heading, body, k, avg));
    return { chunks, indexed };
  }

  private async write(
    tenantId: TenantId,
    group: readonly Pending[],
    out: (UpsertResult | DomainException | undefined)[],
    step: NonNullable<UpsertManyOptions['step']>,
    record: UpsertManyOptions['record'],
  ): Promise<void> {
    if (!group.length) return;
    try {
      const written = await step(() =>
        this.repository.replaceMany(
          tenantId,
          group.map((g) => ({ doc: g.doc, chunks: g.chunks })),
          this.space,
          // Unchanged chunks keep their rows (docs/hot-paths.md "A re-post keeps its unchanged chunks").
          LEXICAL_ANALYZER_VERSION,
          (tx, ids, indexedChunks, rewritten) =>
            this.lexical.replaceDocuments(
              tx,
              tenantId,
              group.map((g) => ({ documentId: ids.get(g.doc.filePath) as string, domain: g.doc.domain, chunks: g.indexed })),
              LEXICAL_ANALYZER_VERSION,
              indexedChunks,
              rewritten,
            ),
          record,
        ),
      );
      written.forEach(({ document, created }, k) => {
        out[group[k].i] = { status: created ? 'created' : 'updated', document };
      });
      this.logger.log({ msg: 'knowledge documents upserted', documents: group.length, chunks: group.reduce((s, g) => s + g.chunks.length, 0) });
    } catch (error) {
      if (group.length === 1) throw error;
      for (const g of group) {
        try {
          await this.write(tenantId, [g], out, step, record);
        } catch (single) {
          if (!(single instanceof DomainException)) throw single;
          out[g.i] = single;
        }
      }
    }
  }

  /**
   * Embeds `title + section path + chunk` so a chunk keeps its document's context; vectors are checked for unit norm. A vector
   * in `reuse` under the chunk's {@link embeddingKey} is taken as it is (same provider, same text).
   */
  async embedChunks(title: string, drafts: readonly ChunkDraft[], reuse?: ReadonlyMap<string, readonly number[]>): Promise<NewChunk[]> {
    const out: NewChunk[] = drafts.map((d) => ({ ...d, embedding: reuse?.get(embeddingKey(title, d.content, d.section)) ?? [] }));
    const missing = out.filter((c) => c.embedding.length === 0);
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH);
      const vectors = await this.provider.embedDocuments(batch.map((c) => embeddingKey(title, c.content, c.section)));
      batch.forEach((chunk, k) => (chunk.embedding = unitVector(vectors[k] ?? [], this.provider.dimension)));
      // The built-in embedder computes on this thread: let other requests run between batches.
      if (i + EMBED_BATCH < missing.length) await new Promise((resolve) => setImmediate(resolve));
    }
    return out;
  }

  /** Imports many documents; each item succeeds or fails on its own (per-item results, in order). */
  /** `items`: validated by `BulkBody` (at most {@link MAX_BULK_ITEMS}, checked there before any item is validated). */
  async bulk(
    tenantId: TenantId,
    items: readonly BulkItem<UpsertDocumentDto>[],
  ): Promise<{ results: BulkItemResult[]; summary: Record<UpsertStatus | 'failed', number> }> {
    const { results, valid } = await checkBulkItems(items);
    // One entry per write transaction (a bulk body is written in groups): its counts and paths.
    const written = await this.upsertMany(
      tenantId,
      valid.map((v) => v.doc),
      {
        record: (tx, group) => {
          const created = group.filter((w) => w.created).length;
          return this.audit.record(tx, tenantId, {
            action: 'bulk_upsert',
            resourceType: 'knowledge_document',
            resourceId: group.length === 1 ? group[0]!.document.id : null,
            label: group.length === 1 ? group[0]!.document.title : `${group.length} documents`,
            summary: {
              count: group.length,
              created,
              updated: group.length - created,
              requested: items.length,
              filePaths: group.map((w) => w.document.filePath),
            },
          });
        },
      },
    );
    valid.forEach(({ index, doc }, k) => {
      const r = written[k];
      results[index] =
        r instanceof DomainException
          ? failedItem(index, doc.filePath, r)
          : { index, filePath: r.document.filePath, status: r.status, documentId: r.document.id, chunkCount: r.document.chunkCount };
    });
    const summary = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    const done = results as BulkItemResult[];
    for (const r of done) summary[r.status]++;
    return { results: done, summary };
  }

  list(tenantId: TenantId, options: { domain?: string; cursor?: string; limit?: number }): Promise<Page<DocumentSummary>> {
    return this.repository.list(tenantId, options);
  }

  async get(tenantId: TenantId, id: string): Promise<DocumentSummary & { content: string }> {
    const doc = await this.repository.get(tenantId, id);
    if (!doc) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, id);
    return doc;
  }

  /**
   * Id, title and file path of those of `ids` that are documents of the tenant, by id (an id of another tenant,
   * or of a deleted document, is absent). For other libs that keep a document id without a foreign key.
   */
  async documentRefs(tenantId: TenantId, ids: readonly string[]): Promise<Map<string, DocumentRef>> {
    const unique = [...new Set(ids)];
    return new Map((await this.repository.documentRefs(tenantId, unique)).map((d) => [d.id, d]));
  }

  /**
   * Deletes a document (docs/hot-paths.md "A large document's removal in groups"): one short transaction takes it out of
   * the statistics, writes the audit entry, deletes its uploaded file and hides it — the delete is done for every reader
   * from there — then its postings and chunks go in groups. A document whose removal did not finish (a crash, a failed
   * group) is finished by deleting it again; else the tenant's next delete removes it after `ABANDONED_HIDDEN_MS`
   * (`sweep: false` skips that look, for a caller deleting many documents that has swept once).
   */
  async delete(tenantId: TenantId, id: string, options: { step?: BackgroundStep; groupChunks?: number; sweep?: boolean } = {}): Promise<void> {
    const step = options.step ?? runStepNow;
    const started = performance.now();
    const counted = await this.countedTerms(tenantId, id, step, options.groupChunks);
    const hiding = performance.now();
    let countedBeforeLock = false;
    const retired = await step(() =>
      this.repository.retire(
        tenantId,
        id,
        counted?.stamp ?? null,
        (tx, unchanged) => {
          countedBeforeLock = unchanged;
          return this.lexical.uncountDocument(tx, tenantId, id, unchanged ? counted?.terms : undefined);
        },
        (tx, doc) =>
          this.audit.record(tx, tenantId, {
            action: 'delete',
            resourceType: 'knowledge_document',
            resourceId: id,
            label: doc.title,
            summary: { filePath: doc.filePath, domain: doc.domain, chunkCount: doc.chunkCount },
          }),
      ),
    );
    const hidden = retired ?? (await step(() => this.repository.findHidden(tenantId, id)));
    if (!hidden) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, id);
    const removing = performance.now();
    try {
      await this.hidden.remove(tenantId, hidden, step, options.groupChunks);
      this.logger.log({
        msg: 'knowledge document deleted',
        documentId: id,
        chunks: hidden.chunkCount,
        countedBeforeLock,
        countMs: Math.round(hiding - started),
        hideMs: Math.round(removing - hiding),
        removeMs: Math.round(performance.now() - removing),
      });
    } catch (error) {
      // Deleted for every reader already: what is left goes when the document is deleted again, or with the sweep.
      this.logger.warn({ msg: 'deleted document not removed in full', documentId: id, error: String(error) });
    }
    if (options.sweep !== false) await this.hidden.sweepAbandoned(tenantId, step);
  }

  /**
   * The terms of a large shown document's postings with their chunk counts, read a group of chunks at a time before
   * its removal's transaction, and the document's stamp before them: the transaction uses them when the stamp is
   * still the same under its lock, and counts in SQL otherwise (docs/hot-paths.md "A large document's removal in groups").
   * Undefined for a document of one group or fewer, which its transaction counts at once.
   */
  private async countedTerms(
    tenantId: TenantId,
    id: string,
    step: BackgroundStep,
    groupChunks = GROUP_WRITE_CHUNKS,
  ): Promise<{ stamp: string; terms: Map<string, number> } | undefined> {
    const doc = await step(() => this.repository.findShownChunkCount(tenantId, id));
    if (!doc || doc.chunkCount <= groupChunks) return undefined;
    const terms = new Map<string, number>();
    for (let first = 0; first < doc.chunkCount; first += groupChunks)
      for (const { term, n } of await step(() => this.lexical.termCounts(tenantId, id, first, first + groupChunks)))
        terms.set(term, (terms.get(term) ?? 0) + n);
    return { stamp: doc.stamp, terms };
  }
}
