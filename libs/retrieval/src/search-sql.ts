import type { TenantId } from '@arbiter/common';
import { type RawBuilder, sql } from '@arbiter/database';
import { containmentGroups, isEmptyFilter, type MetadataFilter } from './metadata-filter.js';
import { assertDimension, toVectorLiteral } from './vector-sql.js';

/**
 * SQL fragments shared by the vector and the lexical search (docs/data-layer.md: fragments are values, Kysely
 * numbers their parameters). Aliases are this lib's own constants, never input.
 */

/**
 * The L2 distance of chunk `alias`'s vector to `vector`, in the form the partial HNSW index of `dim` serves: the
 * dimension is a literal (the index's predicate is `embedding_dim = <dim>`), the vector a parameter.
 */
export function vectorDistance(dim: number, vector: readonly number[], alias = 'c'): RawBuilder<number> {
  const d = sql.lit(assertDimension(dim));
  return sql<number>`(${sql.raw(alias)}.embedding::vector(${d})) <-> ${toVectorLiteral(vector)}::vector(${d})`;
}

/**
 * The condition of a metadata filter on `<alias>.metadata`, each containment document a `jsonb` parameter: one OR
 * group per key, joined by AND. `metadata @> …` is answered by the GIN index idx_knowledge_document_metadata
 * (jsonb_path_ops). Null for the empty filter.
 */
export function metadataCondition(filter: MetadataFilter | undefined, alias: string): RawBuilder<boolean> | null {
  if (!filter || isEmptyFilter(filter)) return null;
  const groups = containmentGroups(filter).map(
    (group) =>
      sql`(${sql.join(
        group.map((doc) => sql`${sql.raw(alias)}.metadata @> ${doc}::jsonb`),
        sql` OR `,
      )})`,
  );
  return sql<boolean>`${sql.join(groups, sql` AND `)}`;
}

/**
 * The uploaded file's name of a document row `d` (null for JSON documents): the file's, not the document's path —
 * the rows of an FAQ sheet are documents `<file>#<row>`.
 */
export function fileNameOf(tenantId: TenantId): RawBuilder<string | null> {
  return sql<string | null>`(SELECT f.file_name FROM knowledge_file f WHERE f.tenant_id = ${tenantId} AND f.id = d.file_id)`;
}

/**
 * The CTE `wd`: the tenant's documents being written in groups (`knowledge_document.writing`, usually none; the partial
 * index idx_knowledge_document_writing). A lookup leaves out their chunks and postings with {@link notBeingWritten}, so it
 * sees a large file's document whole or not at all (docs/hot-paths.md "A large file's write in groups").
 */
export function beingWrittenCte(tenantId: TenantId): RawBuilder<unknown> {
  return sql`wd AS MATERIALIZED (SELECT wd.id FROM knowledge_document wd WHERE wd.tenant_id = ${tenantId} AND wd.writing)`;
}

/** The condition that the row `<alias>` (a chunk or a posting) does not belong to a document of {@link beingWrittenCte}. */
export function notBeingWritten(alias: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.raw(alias)}.document_id NOT IN (SELECT id FROM wd)`;
}
