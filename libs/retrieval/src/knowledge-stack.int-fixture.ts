import { asTenantId, type TenantId } from '@arbiter/common';
import type { BackgroundStep } from '@arbiter/database';
import { LocalEmbeddingProvider } from '@arbiter/llm';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { noAudit } from '../../../test/support/no-audit.js';
import { RETRIEVAL_ENTITIES } from './entities/index.js';
import { KnowledgeChunkRepository } from './knowledge-chunk.repository.js';
import { KnowledgeRepository } from './knowledge.repository.js';
import { type ChunkDraft, KnowledgeService, normalizeDocument } from './knowledge.service.js';
import { analyzeText, LEXICAL_ANALYZER_VERSION } from './lexical/text-analyzer.js';
import { LexicalRepository } from './lexical.repository.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { VectorIndexService } from './vector-index.service.js';
import { VectorSearchRepository } from './vector-search.repository.js';

/**
 * Shared by the int specs of documents written and removed in groups (docs/hot-paths.md "A large file's write in
 * groups", "A large document's removal in groups"): a seven-chunk manual, the knowledge stack on a test database, and
 * what each reader shows of a document.
 */

/** Seven chunks of a manual, each with a word of its own and the shared word "zebra". */
export const MANUAL_DRAFTS: ChunkDraft[] = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'].map((w, k) => ({
  content: `Section ${k + 1}: the zebra crossing and the ${w} procedure of the controller, step ${k + 1}.`,
  page: k + 1,
  section: ['Manual', `Part ${w}`],
}));

/** The manual as a document at `filePath`. */
export const controllerManual = (filePath = 'manual.pdf') =>
  normalizeDocument({ domain: 'arm', filePath, title: 'Controller manual', content: MANUAL_DRAFTS.map((d) => d.content).join('\n\n') });

/** A test tenant's id, `00000000-0000-4000-8000-0000000000<suffix>` (two hex digits). */
export const testTenant = (suffix: string): TenantId => asTenantId(`00000000-0000-4000-8000-0000000000${suffix}`);

/** A step runner that runs `action` after step `n`. */
export const afterStep = (n: number, action: () => Promise<void>): BackgroundStep => {
  let steps = 0;
  return async (work) => {
    const result = await work();
    if (++steps === n) await action();
    return result;
  };
};

/** The retrieval lib's repositories and `KnowledgeService` on a test database (the built-in embedder, 64 dimensions). */
export class KnowledgeStack {
  readonly provider = new LocalEmbeddingProvider({ dimension: 64 });
  readonly space = { model: this.provider.id, dim: this.provider.dimension };
  readonly documents: KnowledgeRepository;
  readonly lexical: LexicalRepository;
  readonly chunks: KnowledgeChunkRepository;
  readonly vectors: VectorSearchRepository;
  readonly knowledge: KnowledgeService;

  private constructor(readonly medium: MediumTest) {
    this.documents = new KnowledgeRepository(medium.database);
    this.lexical = new LexicalRepository(medium.database);
    this.chunks = new KnowledgeChunkRepository(medium.database);
    this.vectors = new VectorSearchRepository(medium.database);
    this.knowledge = new KnowledgeService(
      this.documents,
      new RetrievalSettingsService(new RetrievalSettingsRepository(medium.database), this.provider, noAudit()),
      this.lexical,
      this.provider,
      noAudit(),
    );
  }

  static async start(): Promise<KnowledgeStack> {
    const stack = new KnowledgeStack(await newMediumTest({ entities: RETRIEVAL_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 }));
    await new VectorIndexService(stack.vectors, stack.provider).onModuleInit();
    return stack;
  }

  get db(): TestDatabase {
    return this.medium.db;
  }

  async count(table: string, tenantId: TenantId): Promise<number> {
    return Number((await this.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenantId])).rows[0].n);
  }

  /** The tenant's document frequencies, term → df (zeros left out). */
  async frequencies(tenantId: TenantId): Promise<Record<string, number>> {
    const { rows } = await this.db.pool.query<{ term: string; df: number }>(
      'SELECT term, df FROM knowledge_term_df WHERE tenant_id = $1 AND df <> 0 ORDER BY term',
      [tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.term, Number(r.df)]));
  }

  /** What a lookup, the document endpoints and the re-index check show of document `id` (the manual's words). */
  async visibleParts(tenantId: TenantId, id: string): Promise<string[]> {
    const seen: string[] = [];
    const terms = analyzeText('zebra alpha golf');
    const query = await this.provider.embedQuery('zebra crossing alpha procedure');
    if ((await this.lexical.search(tenantId, terms, this.space, query, 20)).hits.some((h) => h.documentId === id)) seen.push('lexical');
    if ((await this.vectors.nearestChunks(tenantId, this.space, query, 20)).some((h) => h.documentId === id)) seen.push('vector');
    if ((await this.documents.list(tenantId, {})).items.some((d) => d.id === id)) seen.push('list');
    if (await this.documents.get(tenantId, id)) seen.push('get');
    if (await this.documents.findByPath(tenantId, 'manual.pdf')) seen.push('path');
    if (await this.chunks.documentExists(tenantId, id)) seen.push('chunks');
    if ((await this.lexical.tenantsWithStaleDocuments(LEXICAL_ANALYZER_VERSION)).includes(tenantId)) seen.push('reindex');
    return seen;
  }

  close(): Promise<void> {
    return this.medium.close();
  }
}
