import type { SparseRows, SparseVec } from './sparse.js';

/**
 * CSR inverted index over sparse rows: bucket → postings (row, weight), each posting list in row order.
 * Query methods are synchronous and reuse scratch buffers, so one index must not be queried re-entrantly
 * (JavaScript's single thread guarantees that for synchronous callers).
 */
export class InvertedIndex {
  private readonly acc: Float32Array;
  private readonly touched: Int32Array;
  private readonly mark: Uint8Array;

  private constructor(
    private readonly offsets: Int32Array,
    private readonly rows: Int32Array,
    private readonly weights: Float32Array,
    readonly rowCount: number,
  ) {
    this.acc = new Float32Array(rowCount);
    this.touched = new Int32Array(rowCount);
    this.mark = new Uint8Array(rowCount);
  }

  static fromRows(m: SparseRows, buckets: number): InvertedIndex {
    const offsets = new Int32Array(buckets + 1);
    for (let i = 0; i < m.idx.length; i++) offsets[m.idx[i] + 1]++;
    for (let b = 0; b < buckets; b++) offsets[b + 1] += offsets[b];
    const fill = offsets.slice(0, buckets);
    const rows = new Int32Array(offsets[buckets]);
    const weights = new Float32Array(offsets[buckets]);
    const rowCount = m.offsets.length - 1;
    for (let row = 0; row < rowCount; row++) {
      for (let i = m.offsets[row]; i < m.offsets[row + 1]; i++) {
        const at = fill[m.idx[i]]++;
        rows[at] = row;
        weights[at] = m.val[i];
      }
    }
    return new InvertedIndex(offsets, rows, weights, rowCount);
  }

  /** Calls `visit(row, q·row)` once for every row sharing at least one feature with `q`. */
  forEachDot(q: SparseVec, visit: (row: number, dot: number) => void): void {
    const { acc, touched, mark, offsets, rows, weights } = this;
    let n = 0;
    for (let i = 0; i < q.idx.length; i++) {
      const b = q.idx[i];
      const x = q.val[i];
      for (let p = offsets[b]; p < offsets[b + 1]; p++) {
        const r = rows[p];
        if (mark[r] === 0) {
          mark[r] = 1;
          touched[n++] = r;
        }
        acc[r] += x * weights[p];
      }
    }
    for (let t = 0; t < n; t++) {
      const r = touched[t];
      const s = acc[r];
      acc[r] = 0;
      mark[r] = 0;
      visit(r, s);
    }
  }

  /** Dense `q·row` for every row (for small row counts, e.g. one centroid per intent). */
  dotAll(q: SparseVec): Float32Array {
    const out = new Float32Array(this.rowCount);
    const { offsets, rows, weights } = this;
    for (let i = 0; i < q.idx.length; i++) {
      const b = q.idx[i];
      for (let p = offsets[b]; p < offsets[b + 1]; p++) out[rows[p]] += q.val[i] * weights[p];
    }
    return out;
  }

  /** Best `q·row` over rows [lo, hi): walks only that slice of each posting list (binary search). */
  bestInRange(q: SparseVec, lo: number, hi: number): { row: number; dot: number } {
    const { offsets, rows, weights } = this;
    const sims = new Float32Array(Math.max(0, hi - lo));
    for (let f = 0; f < q.idx.length; f++) {
      const b = q.idx[f];
      const end = offsets[b + 1];
      let a = offsets[b];
      let z = end;
      while (a < z) {
        const mid = (a + z) >>> 1;
        if (rows[mid] < lo) a = mid + 1;
        else z = mid;
      }
      for (let p = a; p < end && rows[p] < hi; p++) sims[rows[p] - lo] += q.val[f] * weights[p];
    }
    let row = -1;
    let dot = 0;
    for (let r = 0; r < sims.length; r++) {
      if (sims[r] > dot) {
        dot = sims[r];
        row = lo + r;
      }
    }
    return { row, dot };
  }
}
