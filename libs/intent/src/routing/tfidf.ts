import { HashingFeaturizer } from './text-features.js';
import { fromMap, l2normalize, SparseRowsBuilder, type SparseRows, type SparseVec } from './sparse.js';

/**
 * TF-IDF over hashed features with the IDF fitted on the tenant's own examples: sublinear TF
 * (sign · (1 + ln|count|)), smoothed IDF `ln((1 + N) / (1 + df)) + 1`, L2-normalised output.
 */
export class TfidfVectorizer {
  private constructor(
    readonly featurizer: HashingFeaturizer,
    private readonly idf: Float32Array,
    private readonly unseenIdf: number,
  ) {}

  /** Fits the IDF on `texts` and returns the vectorizer together with the texts' vectors (CSR rows). */
  static fit(featurizer: HashingFeaturizer, texts: readonly string[]): { vectorizer: TfidfVectorizer; rows: SparseRows } {
    const builder = new SparseRowsBuilder();
    for (const t of texts) builder.push(featurizer.features(t));
    const rows = builder.build();
    const df = new Int32Array(featurizer.buckets);
    for (let i = 0; i < rows.idx.length; i++) df[rows.idx[i]]++;
    const n = texts.length;
    const idf = new Float32Array(featurizer.buckets);
    for (let i = 0; i < idf.length; i++) idf[i] = Math.log((1 + n) / (1 + df[i])) + 1;
    const vectorizer = new TfidfVectorizer(featurizer, idf, Math.log(1 + n) + 1);
    for (let r = 0; r < n; r++) {
      vectorizer.weighInPlace({
        idx: rows.idx.subarray(rows.offsets[r], rows.offsets[r + 1]),
        val: rows.val.subarray(rows.offsets[r], rows.offsets[r + 1]),
      });
    }
    return { vectorizer, rows };
  }

  transform(text: string): SparseVec {
    return this.weighInPlace(fromMap(this.featurizer.features(text)));
  }

  private weighInPlace(v: SparseVec): SparseVec {
    for (let i = 0; i < v.idx.length; i++) {
      const c = v.val[i];
      const tf = Math.sign(c) * (1 + Math.log(Math.abs(c)));
      v.val[i] = tf * (this.idf[v.idx[i]] || this.unseenIdf);
    }
    return l2normalize(v);
  }
}
