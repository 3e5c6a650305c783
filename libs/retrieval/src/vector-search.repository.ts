import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, type Db, type RawBuilder, sql } from '@arbiter/database';
import { type HitLocation, type SearchScope, toLocation, type VectorSpace } from './knowledge.repository.js';
import { nearestChunksQuery } from './nearest-chunks-sql.js';
import { fileNameOf, vectorDistance } from './search-sql.js';
import { createHnswIndexSql, hnswIndexName } from './vector-sql.js';

/** One chunk hit of a vector search, with its document. */
export interface ChunkHit extends HitLocation {
  documentId: string;
  filePath: string;
  title: string;
  domain: string;
  chunkIndex: number;
  content: string;
  distance: number;
  /** The document's keywords (exact-hit check); empty where the query did not select them. */
  keywords: string[];
}

/** The columns of {@link nearestChunksQuery}. */
export interface RawHit {
  document_id: string;
  file_path: string;
  title: string;
  domain: string;
  chunk_index: number;
  content: string;
  distance: number;
  keywords?: string[];
  file_name: string | null;
  page: number | null;
  page_end: number | null;
  section: string[] | null;
}

/** A row of {@link nearestChunksQuery} (or its JSON, docs/hot-paths.md "Chat turn") as a hit. */
export const toChunkHit = (r: RawHit): ChunkHit => ({
  documentId: r.document_id,
  filePath: r.file_path,
  title: r.title,
  domain: r.domain,
  chunkIndex: r.chunk_index,
  content: r.content,
  distance: Number(r.distance),
  keywords: r.keywords ?? [],
  ...toLocation(r),
});

/**
 * The vector search over `knowledge_chunk` (docs/retrieval.md): the nearest chunks through the HNSW index of the
 * dimension, the exact baseline, and the index itself — {@link createVectorIndex} is the one runtime DDL. Every
 * search is scoped by the tenant id it takes first. On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class VectorSearchRepository {
  constructor(private readonly database: Database) {}

  /**
   * The `limit` nearest chunks by L2 distance, optionally within one domain and among the documents a
   * metadata filter selects; disabled chunks never. One statement ({@link nearestChunksQuery}), in `db`'s
   * transaction or on its own: exact for a tenant of at most `EXACT_SEARCH_MAX_CHUNKS` chunks (the HNSW index is
   * shared by every tenant, and a filtered scan of it for a small tenant visits mostly other tenants' chunks: its
   * cost grew with the neighbours' data, 10,000 foreign chunks 28 ms against 1.4 ms exact), through the HNSW index
   * of the dimension above (docs/hot-paths.md "Vector search: exact for small tenants"). The index's settings are
   * set by a CTE, local to the statement's transaction (docs/hot-paths.md "Chat turn": no BEGIN/SET/COMMIT round
   * trips). The filter's documents are found first (GIN index) and tested during the scan, so the iterative scan
   * goes on past nearer chunks of other documents: the filter applies before the limit (docs/retrieval.md
   * "Metadata filters").
   */
  async nearestChunks(
    tenantId: TenantId,
    space: VectorSpace,
    vector: readonly number[],
    limit: number,
    scope: SearchScope = {},
    db: Db = this.database.db,
  ): Promise<ChunkHit[]> {
    const { rows } = await nearestChunksQuery<RawHit>(tenantId, space, vector, limit, scope, await this.hnswSettings(limit)).execute(db);
    return rows.map(toChunkHit);
  }

  /**
   * The HNSW parameters of a search for `limit` chunks, as the `set_config` expression {@link nearestChunksQuery}
   * evaluates before its index scan: enough candidates for the tenant/model filter applied during the scan, and
   * pgvector >= 0.8 keeps scanning (iterative scan) where the server knows it.
   */
  async hnswSettings(limit: number): Promise<RawBuilder<unknown>> {
    const efSearch = sql.lit(String(Math.min(1000, Math.max(100, limit * 4))));
    return (await this.iterativeScanSupported())
      ? sql`set_config('hnsw.ef_search', ${efSearch}, true) || set_config('hnsw.iterative_scan', 'relaxed_order', true)`
      : sql`set_config('hnsw.ef_search', ${efSearch}, true)`;
  }

  private iterativeScan: Promise<boolean> | undefined;

  /** Whether the server knows `hnsw.iterative_scan` (pgvector >= 0.8): probed once, by a statement of its own. */
  private iterativeScanSupported(): Promise<boolean> {
    this.iterativeScan ??= sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`.execute(this.database.db).then(
      () => true,
      (error: { code?: string }) => {
        // An unknown parameter or value: an older pgvector. Anything else (e.g. the database is away): ask again next time.
        if (error.code !== '42704' && error.code !== '22023') this.iterativeScan = undefined;
        return false;
      },
    );
    return this.iterativeScan;
  }

  /** Exact (no index) nearest chunks: the recall baseline of the benchmark. */
  async nearestChunksExact(tenantId: TenantId, space: VectorSpace, vector: readonly number[], limit: number): Promise<ChunkHit[]> {
    return this.database.transaction(async (tx) => {
      await sql`SELECT set_config('enable_indexscan', 'off', true)`.execute(tx);
      const { rows } = await sql<RawHit>`
        SELECT c.document_id, d.file_path, d.title, c.domain, c.chunk_index, c.content, ${vectorDistance(space.dim, vector)} AS distance,
                ${fileNameOf(tenantId)} AS file_name, c.page, c.page_end, c.section
           FROM knowledge_chunk c JOIN knowledge_document d ON d.tenant_id = c.tenant_id AND d.id = c.document_id
          WHERE c.embedding_dim = ${sql.lit(space.dim)} AND c.tenant_id = ${tenantId} AND c.embedding_model = ${space.model} AND c.disabled_at IS NULL AND NOT d.writing
          ORDER BY distance LIMIT ${limit}`.execute(tx);
      return rows.map(toChunkHit);
    });
  }

  /**
   * Creates the HNSW index of chunks of dimension `dim` if it is missing (VectorIndexService). The one DDL run
   * after boot's migrations, and the only one outside `migrations/`: the index is per embedding dimension, and the
   * dimension is the configured provider's (changing it needs no migration).
   */
  async createVectorIndex(dim: number): Promise<void> {
    await sql`${sql.raw(createHnswIndexSql(dim))}`.execute(this.database.db);
  }

  /** Drops the dimension's HNSW index; true when there was one. */
  async dropVectorIndex(dim: number): Promise<boolean> {
    if (!(await this.indexExists(hnswIndexName(dim)))) return false;
    await sql`${sql.raw(`DROP INDEX IF EXISTS ${hnswIndexName(dim)}`)}`.execute(this.database.db);
    return true;
  }

  async indexExists(name: string): Promise<boolean> {
    const { rows } = await sql`SELECT 1 FROM pg_indexes WHERE indexname = ${name}`.execute(this.database.db);
    return rows.length > 0;
  }
}
