import type { EmbeddingProvider } from '@arbiter/llm';
import type { TextEmbedder } from './routing/index.js';

/** Packs vectors (all of `dim` numbers) as little-endian float32, row after row. */
export function encodeVectors(vectors: readonly (readonly number[])[], dim: number): Buffer {
  const buf = Buffer.allocUnsafe(vectors.length * dim * 4);
  let o = 0;
  for (const v of vectors) {
    if (v.length !== dim) throw new Error(`vector has ${v.length} dimensions, expected ${dim}`);
    for (let j = 0; j < dim; j++, o += 4) buf.writeFloatLE(v[j], o);
  }
  return buf;
}

/** Inverse of {@link encodeVectors}. */
export function decodeVectors(buf: Buffer, count: number, dim: number): number[][] {
  if (buf.length !== count * dim * 4) throw new Error(`embedding blob has ${buf.length} bytes, expected ${count * dim * 4}`);
  const out: number[][] = new Array<number[]>(count);
  let o = 0;
  for (let r = 0; r < count; r++) {
    const row = new Array<number>(dim);
    for (let j = 0; j < dim; j++, o += 4) row[j] = buf.readFloatLE(o);
    out[r] = row;
  }
  return out;
}

/** The tenant embedding provider as the routing core's `TextEmbedder` (message embeddings, mode A). */
export class ProviderTextEmbedder implements TextEmbedder {
  readonly dimension: number;
  constructor(private readonly provider: EmbeddingProvider) {
    this.dimension = provider.dimension;
  }

  async embed(text: string, signal?: AbortSignal): Promise<number[]> {
    if (signal?.aborted) throw new Error('aborted');
    return this.provider.embedQuery(text);
  }
}
