import type { TenantId } from '@arbiter/common';
import { type RawBuilder, sql } from '@arbiter/database';
import type { SearchScope, VectorSpace } from './knowledge.repository.js';
import { beingWrittenCte, fileNameOf, metadataCondition, notBeingWritten, vectorDistance } from './search-sql.js';

/**
 * Up to this many chunks (the tenant's count in `knowledge_lexical_stats`), a vector search is exact: measured on
 * the embedded database at 384 dimensions, an exact search of 5,000 chunks costs what the HNSW index does (~5 ms),
 * and it never depends on other tenants' data (docs/hot-paths.md "Vector search: exact for small tenants").
 */
export const EXACT_SEARCH_MAX_CHUNKS = 5000;

/**
 * The statement of `VectorSearchRepository.nearestChunks` (no database access: the integration test explains it).
 * `settings: null` leaves the HNSW branch out: a larger tenant then gets no rows, and the caller ranks its lexical
 * candidates by their exact distance instead (the hashing embedder's space, docs/hot-paths.md "No ANN search in the
 * hashing embedder's space").
 * Two branches, of which a one-time filter runs one (docs/hot-paths.md "Vector search: exact for small tenants"):
 * a tenant with at most {@link EXACT_SEARCH_MAX_CHUNKS} chunks is searched exactly, through one of its b-trees
 * (the planner picks which; all lead with `tenant_id`) and a top-N sort; a larger one through the HNSW index of the dimension,
 * after `settings` (the HNSW parameters, a `set_config` expression) ran in a CTE that the branch's one-time
 * filter evaluates before the index scan starts. The index branch orders by the select-list distance (the
 * expression the HNSW index orders by), the exact branch by `distance + 0`, which no index orders by.
 */
export function nearestChunksQuery<Row>(
  tenantId: TenantId,
  space: VectorSpace,
  vector: readonly number[],
  limit: number,
  scope: SearchScope,
  settings: RawBuilder<unknown> | null,
): RawBuilder<Row> {
  const filter = metadataCondition(scope.filter, 'fd');
  const filtered = filter ? sql`, fd AS MATERIALIZED (SELECT fd.id FROM knowledge_document fd WHERE fd.tenant_id = ${tenantId} AND ${filter})` : sql``;
  const conditions = sql`c.embedding_dim = ${sql.lit(space.dim)} AND c.tenant_id = ${tenantId} AND c.embedding_model = ${space.model} AND c.disabled_at IS NULL${
    scope.domain ? sql` AND c.domain = ${scope.domain}` : sql``
  }${filter ? sql` AND c.document_id IN (SELECT id FROM fd)` : sql``} AND ${notBeingWritten('c')}`;
  const columns = sql`c.document_id, c.domain, c.chunk_index, c.content, c.page, c.page_end, c.section`;
  const distance = vectorDistance(space.dim, vector);
  const annBranch = settings
    ? sql`(SELECT ${columns}, ${distance} AS distance
                FROM knowledge_chunk c
               WHERE NOT (SELECT exact FROM size) AND (SELECT applied FROM hnsw) IS NOT NULL AND ${conditions}
               ORDER BY distance
               LIMIT ${limit})
             UNION ALL
             `
    : sql``;
  return sql<Row>`
    WITH size AS MATERIALIZED (
           SELECT COALESCE((SELECT s.chunk_count FROM knowledge_lexical_stats s WHERE s.tenant_id = ${tenantId}), 0) <= ${sql.lit(EXACT_SEARCH_MAX_CHUNKS)} AS exact)${
             settings
               ? sql`,
         hnsw AS MATERIALIZED (SELECT ${settings} AS applied)`
               : sql``
           }${filtered},
         ${beingWrittenCte(tenantId)}
     SELECT h.document_id, d.file_path, d.title, d.keywords, h.domain, h.chunk_index, h.content, h.distance,
            ${fileNameOf(tenantId)} AS file_name, h.page, h.page_end, h.section
       FROM (${annBranch}(SELECT ${columns}, (${distance}) + 0 AS distance
                FROM knowledge_chunk c
               WHERE (SELECT exact FROM size) AND ${conditions}
               ORDER BY distance
               LIMIT ${limit})) h
       JOIN knowledge_document d ON d.id = h.document_id AND d.tenant_id = ${tenantId}
      ORDER BY h.distance, d.file_path, h.chunk_index`;
}
