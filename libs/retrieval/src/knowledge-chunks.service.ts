import { Inject, Injectable } from '@nestjs/common';
import { DomainException, type Page, PAGE_LIMITS, type TenantId } from '@arbiter/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import type { EditChunkDto } from './dto/knowledge.dto.js';
import { KnowledgeChunkRepository, type ChunkPostings, type ChunkState, type ChunkView } from './knowledge-chunk.repository.js';
import { AuditLog } from '@arbiter/tenancy';
import type { VectorSpace } from './knowledge.repository.js';
import { embeddingKey, unitVector } from './knowledge.service.js';
import { chunkContextText } from './lexical/chunk-context.js';
import { LexicalRepository } from './lexical.repository.js';
import { analyzeHeading, indexChunk, lengthNorm } from './lexical/indexing.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';

/** A chunk index in a path: digits only (at most 9). */
const CHUNK_INDEX = /^\d{1,9}$/;

/** Opaque to clients, like every list's cursor (libs/common cursor.ts): base64url of `["chunk", index]`. */
export function encodeChunkCursor(chunkIndex: number): string {
  return Buffer.from(JSON.stringify(['chunk', chunkIndex]), 'utf8').toString('base64url');
}

export function decodeChunkCursor(raw: string): number {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed[0] === 'chunk' && Number.isInteger(parsed[1]) && (parsed[1] as number) >= 0)
      return parsed[1] as number;
  } catch {
    // fall through to the typed error
  }
  throw new DomainException('INVALID_CURSOR', 400, 'cursor is malformed');
}

/**
 * The postings a chunk has after an edit (docs/documents.md "Chunks"): a disabled chunk has none but keeps
 * its length in the statistics (as its document's chunk count keeps it), so statistics always equal the
 * documents' sums; new text changes the length by the difference. Null while the document's postings are
 * of another analyzer version: the re-index job rebuilds them from the stored chunks.
 */
export function chunkPostingsAfterEdit(
  state: ChunkState,
  edit: { content?: string; disabled?: boolean },
  chunkIndex: number,
  averageLength: number,
): ChunkPostings | null {
  if (state.lexicalVersion !== LEXICAL_ANALYZER_VERSION) return null;
  const heading = analyzeHeading(state.title, state.keywords);
  const body = analyzeText(chunkContextText(edit.content ?? state.content, state.section));
  const avg = lengthNorm(heading, [body], averageLength);
  const next = indexChunk(heading, body, chunkIndex, avg);
  const previousLength =
    edit.content === undefined ? next.length : indexChunk(heading, analyzeText(chunkContextText(state.content, state.section)), chunkIndex, avg).length;
  const disabled = edit.disabled ?? state.disabled;
  return { terms: disabled ? [] : next.terms, impacts: disabled ? [] : next.impacts, lengthDelta: next.length - previousLength };
}

/** Review and correction of a document's chunks (docs/documents.md "Chunks"). */
@Injectable()
export class KnowledgeChunksService {
  constructor(
    private readonly chunks: KnowledgeChunkRepository,
    private readonly lexical: LexicalRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly audit: AuditLog,
  ) {}

  private get space(): VectorSpace {
    return { model: this.provider.id, dim: this.provider.dimension };
  }

  /** The document's chunks in the current space, in order, a page at a time; 404 for a document the tenant does not have. */
  async list(tenantId: TenantId, documentId: string, query: { limit?: number; cursor?: string }): Promise<Page<ChunkView>> {
    const after = query.cursor ? decodeChunkCursor(query.cursor) : -1;
    const limit = query.limit ?? PAGE_LIMITS.default;
    if (!(await this.chunks.documentExists(tenantId, documentId))) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, documentId);
    const rows = await this.chunks.list(tenantId, documentId, this.space, after, limit + 1);
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? encodeChunkCursor(items[items.length - 1].chunkIndex) : null };
  }

  /**
   * Edits a chunk: new text is embedded (before the transaction: a remote provider never holds a connection)
   * and written with its postings in one transaction; `disabled` takes the chunk out of every lookup or brings
   * it back. Checked first: a rejected request writes nothing.
   */
  async edit(tenantId: TenantId, documentId: string, chunkIndexParam: string, dto: EditChunkDto): Promise<ChunkView> {
    if (!CHUNK_INDEX.test(chunkIndexParam))
      throw new RetrievalException(RetrievalErrorCode.INVALID_CHUNK_EDIT, 'chunkIndex must be a non-negative integer', { fields: ['chunkIndex'] });
    if (dto.content === undefined && dto.disabled === undefined)
      throw new RetrievalException(RetrievalErrorCode.INVALID_CHUNK_EDIT, 'give content, disabled or both', { fields: ['content', 'disabled'] });
    const chunkIndex = Number(chunkIndexParam);
    const space = this.space;
    let embedding: number[] | undefined;
    if (dto.content !== undefined) {
      const context = await this.chunks.embeddingContext(tenantId, documentId, chunkIndex);
      if (context === null) throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, documentId);
      // As the document's chunks were embedded (KnowledgeService.embedChunks): title, section path and chunk.
      const [vector] = await this.provider.embedDocuments([embeddingKey(context.title, dto.content, context.section)]);
      embedding = unitVector(vector ?? [], space.dim);
    }
    const { averageLength } = await this.lexical.stats(tenantId);
    const outcome = await this.chunks.edit(
      tenantId,
      documentId,
      chunkIndex,
      space,
      (state) => ({
        ...(dto.content !== undefined && embedding ? { content: { text: dto.content, embedding } } : {}),
        ...(dto.disabled !== undefined ? { disabled: dto.disabled } : {}),
        postings: chunkPostingsAfterEdit(state, dto, chunkIndex, averageLength),
      }),
      (tx, before) =>
        this.audit.record(tx, tenantId, {
          action: 'update',
          resourceType: 'knowledge_chunk',
          resourceId: `${documentId}#${chunkIndex}`,
          label: `${before.title} #${chunkIndex}`,
          summary: {
            documentId,
            chunkIndex,
            changed: [...(dto.content !== undefined ? ['content'] : []), ...(dto.disabled !== undefined ? ['disabled'] : [])],
            ...(dto.disabled !== undefined ? { before: { disabled: before.disabled }, after: { disabled: dto.disabled } } : {}),
            ...(dto.content !== undefined ? { contentLength: { before: before.content.length, after: dto.content.length } } : {}),
          },
        }),
    );
    switch (outcome.found) {
      case 'none':
        throw new RetrievalException(RetrievalErrorCode.DOCUMENT_NOT_FOUND, documentId);
      case 'document':
        throw new RetrievalException(RetrievalErrorCode.CHUNK_NOT_FOUND, `${documentId} #${chunkIndex}`);
      case 'chunk':
        return outcome.chunk as ChunkView;
    }
  }
}
