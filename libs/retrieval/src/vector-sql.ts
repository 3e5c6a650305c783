/**
 * SQL fragments for the dimension-agnostic vector column (no Nest, no database access).
 * The dimension is always validated as an integer before it is inlined: the partial index only
 * serves queries whose predicate is the literal `embedding_dim = <dim>`.
 */

export const MAX_VECTOR_DIMENSION = 4096;

export function assertDimension(dim: number): number {
  if (!Number.isInteger(dim) || dim < 1 || dim > MAX_VECTOR_DIMENSION) {
    throw new RangeError(`embedding dimension must be an integer within [1, ${MAX_VECTOR_DIMENSION}], got ${dim}`);
  }
  return dim;
}

export function hnswIndexName(dim: number): string {
  return `idx_knowledge_chunk_hnsw_${assertDimension(dim)}`;
}

/** HNSW (L2) partial expression index over the chunks of one dimension; HNSW supports <= 2000 dims. */
export function createHnswIndexSql(dim: number, options: { concurrently?: boolean; m?: number; efConstruction?: number } = {}): string {
  const d = assertDimension(dim);
  const m = options.m ?? 16;
  const ef = options.efConstruction ?? 64;
  return (
    `CREATE INDEX ${options.concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${hnswIndexName(d)} ON knowledge_chunk ` +
    `USING hnsw ((embedding::vector(${d})) vector_l2_ops) WITH (m = ${m}, ef_construction = ${ef}) WHERE embedding_dim = ${d}`
  );
}

/** pgvector's text form of a vector. */
export function toVectorLiteral(vector: readonly number[]): string {
  for (const x of vector) if (!Number.isFinite(x)) throw new RangeError('vector components must be finite numbers');
  return `[${vector.join(',')}]`;
}

export function parseVectorLiteral(text: string): number[] {
  const body = text.trim().replace(/^\[/, '').replace(/\]$/, '');
  return body.length ? body.split(',').map(Number) : [];
}

export function l2Norm(vector: readonly number[]): number {
  let s = 0;
  for (const x of vector) s += x * x;
  return Math.sqrt(s);
}
