import { describe, expect, it } from '@jest/globals';
import { assertDimension, createHnswIndexSql, hnswIndexName, l2Norm, parseVectorLiteral, toVectorLiteral } from './vector-sql.js';

describe('vector SQL', () => {
  it('builds a partial expression HNSW index per dimension', () => {
    expect(hnswIndexName(384)).toBe('idx_knowledge_chunk_hnsw_384');
    expect(createHnswIndexSql(384)).toBe(
      'CREATE INDEX IF NOT EXISTS idx_knowledge_chunk_hnsw_384 ON knowledge_chunk USING hnsw ((embedding::vector(384)) vector_l2_ops) WITH (m = 16, ef_construction = 64) WHERE embedding_dim = 384',
    );
    expect(createHnswIndexSql(8, { concurrently: true, m: 8, efConstruction: 32 })).toContain(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_knowledge_chunk_hnsw_8',
    );
  });

  it.each([0, -1, 1.5, 5000, Number.NaN])('rejects dimension %p (it is inlined into SQL)', (dim) => {
    expect(() => assertDimension(dim)).toThrow(RangeError);
  });

  it('round-trips vector literals and computes norms', () => {
    expect(toVectorLiteral([0.6, -0.8])).toBe('[0.6,-0.8]');
    expect(parseVectorLiteral('[0.6,-0.8]')).toEqual([0.6, -0.8]);
    expect(parseVectorLiteral('[]')).toEqual([]);
    expect(l2Norm([0.6, -0.8])).toBeCloseTo(1, 12);
    expect(() => toVectorLiteral([1, Number.NaN])).toThrow(RangeError);
  });
});
