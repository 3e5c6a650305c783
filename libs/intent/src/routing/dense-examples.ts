import type { SemanticAggregation } from './config.js';
import { IntentAggregator } from './intent-aggregator.js';

/** Per-intent scores over provider-embedded examples, with the nearest example row per intent. */
export interface DenseScores {
  aggregation: SemanticAggregation;
  scores: Float32Array;
  /** Example row (as in `IntentIndex.exampleTexts`) of the nearest example per intent, -1 if none. */
  nearest: Int32Array;
  nearestSim: Float32Array;
}

/**
 * Mode B over examples embedded by the tenant's provider when the rule was saved (`exampleVectors`):
 * brute-force cosine over one flat Float32Array (rows L2-normalised at build). `classifier` has no
 * dense model and is served by `centroid_knn`.
 */
export class DenseExamples {
  private readonly matrix: Float32Array;
  private readonly centroids: Float32Array;
  private readonly countPerIntent: Int32Array;

  constructor(
    readonly dimension: number,
    vectors: readonly (readonly number[])[],
    private readonly rowIntent: Int32Array,
    /** Example row in the owning index for each vector. */
    private readonly rowExample: Int32Array,
    exampleCountPerIntent: Int32Array,
  ) {
    const d = dimension;
    const nI = exampleCountPerIntent.length;
    this.matrix = new Float32Array(vectors.length * d);
    this.centroids = new Float32Array(nI * d);
    this.countPerIntent = new Int32Array(nI);
    vectors.forEach((v, r) => {
      const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
      for (let j = 0; j < d; j++) {
        this.matrix[r * d + j] = v[j] / norm;
        this.centroids[rowIntent[r] * d + j] += v[j] / norm;
      }
      this.countPerIntent[rowIntent[r]]++;
    });
    for (let i = 0; i < nI; i++) {
      let sq = 0;
      for (let j = 0; j < d; j++) sq += this.centroids[i * d + j] ** 2;
      const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
      for (let j = 0; j < d; j++) this.centroids[i * d + j] *= inv;
    }
  }

  get size(): number {
    return this.rowIntent.length;
  }

  score(query: readonly number[], aggregation: SemanticAggregation, k: number): DenseScores {
    const d = this.dimension;
    const norm = Math.sqrt(query.reduce((s, x) => s + x * x, 0)) || 1;
    const q = Float32Array.from(query, (x) => x / norm);
    const agg = new IntentAggregator(this.countPerIntent, k);
    for (let r = 0; r < this.rowIntent.length; r++) {
      let s = 0;
      for (let j = 0, o = r * d; j < d; j++, o++) s += q[j] * this.matrix[o];
      agg.add(this.rowIntent[r], this.rowExample[r], s);
    }
    const used = aggregation === 'classifier' ? 'centroid_knn' : aggregation;
    let centroidSim: Float32Array | undefined;
    if (used === 'centroid_knn') {
      centroidSim = new Float32Array(this.countPerIntent.length);
      for (let i = 0; i < centroidSim.length; i++) {
        for (let j = 0; j < d; j++) centroidSim[i] += q[j] * this.centroids[i * d + j];
      }
    }
    return { aggregation: used, scores: agg.scores(used, centroidSim), nearest: agg.nearest, nearestSim: agg.nearestSim };
  }
}
