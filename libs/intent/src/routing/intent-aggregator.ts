import type { SemanticAggregation } from './config.js';

export type SimilarityAggregation = Exclude<SemanticAggregation, 'classifier'>;

/**
 * Folds example similarities into per-intent scores (`mean`, `max`, `topk_mean`, `centroid_knn`) and
 * remembers each intent's nearest example for the trace. Feed it every positive similarity once.
 */
export class IntentAggregator {
  readonly nearest: Int32Array;
  readonly nearestSim: Float32Array;
  private readonly sum: Float32Array;
  private readonly top: Float32Array;

  constructor(
    private readonly exampleCount: Int32Array,
    private readonly k: number,
  ) {
    const n = exampleCount.length;
    this.nearest = new Int32Array(n).fill(-1);
    this.nearestSim = new Float32Array(n);
    this.sum = new Float32Array(n);
    this.top = new Float32Array(n * k);
  }

  add(intent: number, row: number, s: number): void {
    if (s <= 0) return;
    this.sum[intent] += s;
    if (s > this.nearestSim[intent]) {
      this.nearestSim[intent] = s;
      this.nearest[intent] = row;
    }
    const { top, k } = this;
    const base = intent * k;
    if (s > top[base + k - 1]) {
      let j = k - 1;
      while (j > 0 && top[base + j - 1] < s) {
        top[base + j] = top[base + j - 1];
        j--;
      }
      top[base + j] = s;
    }
  }

  /** Scores clamped to [0, 1]; `centroidSim` is required for `centroid_knn` (0.5 · centroid + 0.5 · topk_mean). */
  scores(aggregation: SimilarityAggregation, centroidSim?: Float32Array): Float32Array {
    const n = this.exampleCount.length;
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const count = this.exampleCount[i];
      let s = 0;
      switch (aggregation) {
        case 'mean':
          s = count > 0 ? this.sum[i] / count : 0;
          break;
        case 'max':
          s = this.nearestSim[i];
          break;
        case 'topk_mean':
          s = this.topkMean(i);
          break;
        case 'centroid_knn':
          s = count > 0 ? 0.5 * Math.max(0, centroidSim?.[i] ?? 0) + 0.5 * this.topkMean(i) : 0;
          break;
      }
      out[i] = Math.min(1, Math.max(0, s));
    }
    return out;
  }

  private topkMean(i: number): number {
    const n = Math.min(this.k, this.exampleCount[i]);
    let s = 0;
    for (let j = 0; j < n; j++) s += this.top[i * this.k + j];
    return n === 0 ? 0 : s / n;
  }
}
