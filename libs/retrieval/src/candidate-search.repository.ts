import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, type Db, sql } from '@arbiter/database';
import type { SearchScope, VectorSpace } from './knowledge.repository.js';
import { type LexicalSearchResult, type LexicalSearchRow, lexicalSearchSql, parseLexicalSearchRow } from './lexical-search-sql.js';
import { nearestChunksQuery } from './nearest-chunks-sql.js';
import { type ChunkHit, type RawHit, toChunkHit, VectorSearchRepository } from './vector-search.repository.js';

export interface CandidateSearch {
  /** The query's distinct analysed terms. */
  terms: readonly string[];
  /** Their translations and the translated query's vector (docs/retrieval.md "Cross-language retrieval"). */
  translation: { terms: readonly string[]; vector: readonly number[] } | null;
  space: VectorSpace;
  vector: readonly number[];
  vectorLimit: number;
  /**
   * Whether a tenant above `EXACT_SEARCH_MAX_CHUNKS` chunks is searched through the HNSW index (default). False: the
   * vector list is empty there and the caller ranks the lexical candidates by distance (docs/hot-paths.md "No ANN
   * search in the hashing embedder's space").
   */
  annSearch?: boolean;
  lexicalLimit: number;
  scope: SearchScope;
}

export interface CandidateSearchResult {
  vector: ChunkHit[];
  own: LexicalSearchResult;
  translated: LexicalSearchResult | null;
}

/**
 * The lookup's candidate generation in **one statement** (docs/hot-paths.md "Chat turn"): the BM25 lists of
 * `LexicalRepository.searchWithTranslation` as the statement's CTEs and columns, and the nearest chunks of
 * `VectorSearchRepository.nearestChunks` as one more column, a JSON array of the same rows. Each part is the very
 * SQL its repository runs on its own (the integration test compares them), so only the round trips change:
 * one instead of two, and one queue wait instead of two on the embedded database.
 */
@Injectable()
export class CandidateSearchRepository {
  constructor(
    private readonly database: Database,
    private readonly vectors: VectorSearchRepository,
  ) {}

  async search(tenantId: TenantId, request: CandidateSearch, db: Db = this.database.db): Promise<CandidateSearchResult> {
    const translation = request.translation?.terms.length ? request.translation : null;
    const lexical = lexicalSearchSql(tenantId, request.terms, translation, request.space, request.vector, request.lexicalLimit, request.scope);
    const settings = request.annSearch === false ? null : await this.vectors.hnswSettings(request.vectorLimit);
    const nearest = nearestChunksQuery(tenantId, request.space, request.vector, request.vectorLimit, request.scope, settings);
    const { rows } = await sql<LexicalSearchRow>`
      WITH ${lexical.ctes}
      SELECT ${lexical.columns}, (SELECT json_agg(v ORDER BY v.distance) FROM (${nearest}) v) AS hits_v`.execute(db);
    const row = rows[0] ?? {};
    const vector = ((row.hits_v as RawHit[] | null) ?? []).map(toChunkHit);
    return { vector, ...parseLexicalSearchRow(row, translation !== null) };
  }
}
