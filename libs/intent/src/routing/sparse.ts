/** Sparse vector: parallel bucket indices and values (not necessarily sorted). */
export interface SparseVec {
  idx: Int32Array;
  val: Float32Array;
}

export const EMPTY_SPARSE: SparseVec = { idx: new Int32Array(0), val: new Float32Array(0) };

export function l2normalize(v: SparseVec): SparseVec {
  let sq = 0;
  for (let i = 0; i < v.val.length; i++) sq += v.val[i] * v.val[i];
  if (sq === 0) return v;
  const inv = 1 / Math.sqrt(sq);
  for (let i = 0; i < v.val.length; i++) v.val[i] *= inv;
  return v;
}

export function fromMap(m: Map<number, number>): SparseVec {
  const idx = new Int32Array(m.size);
  const val = new Float32Array(m.size);
  let i = 0;
  for (const [k, x] of m) {
    if (x === 0) continue;
    idx[i] = k;
    val[i] = x;
    i++;
  }
  return i === m.size ? { idx, val } : { idx: idx.slice(0, i), val: val.slice(0, i) };
}

/** Dense cosine for provider vectors (mode A); 0 when either side has zero norm. */
export function cosineDense(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Many sparse rows in three flat arrays (CSR): row r spans [offsets[r], offsets[r + 1]). */
export interface SparseRows {
  offsets: Int32Array;
  idx: Int32Array;
  val: Float32Array;
}

export function rowCount(rows: SparseRows): number {
  return rows.offsets.length - 1;
}

/** Appends rows into growing flat buffers, so a large training set never holds one object per row. */
export class SparseRowsBuilder {
  private offsets: number[] = [0];
  private idx = new Int32Array(1024);
  private val = new Float32Array(1024);
  private size = 0;

  push(m: Map<number, number>): void {
    if (this.size + m.size > this.idx.length) {
      const cap = Math.max(this.idx.length * 2, this.size + m.size);
      const idx = new Int32Array(cap);
      idx.set(this.idx.subarray(0, this.size));
      const val = new Float32Array(cap);
      val.set(this.val.subarray(0, this.size));
      this.idx = idx;
      this.val = val;
    }
    for (const [k, x] of m) {
      if (x === 0) continue;
      this.idx[this.size] = k;
      this.val[this.size] = x;
      this.size++;
    }
    this.offsets.push(this.size);
  }

  build(): SparseRows {
    return { offsets: Int32Array.from(this.offsets), idx: this.idx.slice(0, this.size), val: this.val.slice(0, this.size) };
  }
}
