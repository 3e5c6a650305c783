import type { SparseRows, SparseVec } from './sparse.js';

export interface ClassifierTrainOptions {
  epochs?: number;
  learningRate?: number;
  /** L2 penalty applied to the touched weights at each step. */
  l2?: number;
  /** Features seen in fewer training examples are dropped (keeps the weight matrix small). */
  minDf?: number;
  seed?: number;
  /** Yield to the event loop every N examples so training never stalls request handling. */
  yieldEvery?: number;
  /** Abort training (e.g. the rules changed again); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Deterministic PRNG for shuffling (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Multinomial logistic regression over sparse TF-IDF vectors, trained with Adagrad SGD.
 * Weights are stored feature-major over a compact column space (only features seen in training),
 * so a prediction costs nnz(query) × classes multiply-adds.
 */
export class SoftmaxClassifier {
  private constructor(
    readonly numClasses: number,
    /** bucket → compact column, -1 when unseen. */
    private readonly column: Int32Array,
    private readonly weights: Float32Array,
    private readonly bias: Float32Array,
  ) {}

  get parameterCount(): number {
    return this.weights.length + this.bias.length;
  }

  static async train(data: SparseRows, labels: Int32Array, numClasses: number, buckets: number, opts: ClassifierTrainOptions = {}): Promise<SoftmaxClassifier> {
    const epochs = opts.epochs ?? 10;
    const lr = opts.learningRate ?? 1;
    const l2 = opts.l2 ?? 0;
    const minDf = opts.minDf ?? 2;
    const yieldEvery = opts.yieldEvery ?? 1000;
    const rand = rng(opts.seed ?? 42);

    const df = new Int32Array(buckets);
    for (let i = 0; i < data.idx.length; i++) df[data.idx[i]]++;
    const column = new Int32Array(buckets).fill(-1);
    let cols = 0;
    for (let b = 0; b < buckets; b++) if (df[b] >= minDf) column[b] = cols++;

    const C = numClasses;
    const W = new Float32Array(cols * C);
    const G = new Float32Array(cols);
    const bias = new Float32Array(C);
    const Gb = new Float32Array(C);
    const model = new SoftmaxClassifier(C, column, W, bias);
    const p = new Float32Array(C);
    const order = Array.from({ length: data.offsets.length - 1 }, (_, i) => i);
    let seen = 0;
    for (let epoch = 0; epoch < epochs; epoch++) {
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (const n of order) {
        const v: SparseVec = {
          idx: data.idx.subarray(data.offsets[n], data.offsets[n + 1]),
          val: data.val.subarray(data.offsets[n], data.offsets[n + 1]),
        };
        model.predictInto(v, p);
        const y = labels[n];
        // Adagrad with one accumulator per feature (shared by the classes): no second weight-sized matrix
        let gsq = 0;
        for (let c = 0; c < C; c++) {
          const g = p[c] - (c === y ? 1 : 0);
          gsq += g * g;
        }
        for (let i = 0; i < v.idx.length; i++) {
          const col = column[v.idx[i]];
          if (col >= 0) G[col] += gsq * v.val[i] * v.val[i];
        }
        for (let c = 0; c < C; c++) {
          const g = p[c] - (c === y ? 1 : 0);
          if (Math.abs(g) < 1e-4) continue;
          Gb[c] += g * g;
          bias[c] -= (lr * g) / Math.sqrt(Gb[c] + 1e-8);
          for (let i = 0; i < v.idx.length; i++) {
            const col = column[v.idx[i]];
            if (col < 0) continue;
            const k = col * C + c;
            const gw = g * v.val[i] + l2 * W[k];
            W[k] -= (lr * gw) / Math.sqrt(G[col] + 1e-8);
          }
        }
        if (++seen % yieldEvery === 0) {
          await yieldToLoop();
          opts.signal?.throwIfAborted();
        }
      }
    }
    return model;
  }

  /** Writes class probabilities of `v` into `out` (length numClasses). */
  predictInto(v: SparseVec, out: Float32Array): void {
    const C = this.numClasses;
    out.set(this.bias);
    for (let i = 0; i < v.idx.length; i++) {
      const col = this.column[v.idx[i]];
      if (col < 0) continue;
      const x = v.val[i];
      const base = col * C;
      for (let c = 0; c < C; c++) out[c] += x * this.weights[base + c];
    }
    let max = -Infinity;
    for (let c = 0; c < C; c++) if (out[c] > max) max = out[c];
    let sum = 0;
    for (let c = 0; c < C; c++) {
      out[c] = Math.exp(out[c] - max);
      sum += out[c];
    }
    for (let c = 0; c < C; c++) out[c] /= sum;
  }
}
