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

/** The numeric options only (what a training job carries to a worker thread). */
export type ClassifierHyperparameters = Omit<ClassifierTrainOptions, 'signal'>;

/** A trained model as plain typed arrays: what a worker thread sends back (transferable). */
export interface ClassifierWeights {
  numClasses: number;
  /** Hash bucket of each compact column, ascending (only features kept by `minDf`). */
  columnBuckets: Int32Array;
  /** Feature-major: `weights[col * numClasses + c]`. */
  weights: Float32Array;
  bias: Float32Array;
  /** Adagrad's accumulated squared gradients (per column, per class bias): what a warm start continues from. */
  adagrad?: { columns: Float32Array; bias: Float32Array };
  /** Warm starts since the last training from scratch (0 or absent: trained from scratch). */
  warmStarts?: number;
}

/**
 * Continue from a previous model (an edit of a few rules): its weights and Adagrad state are copied onto
 * the new columns and classes (`classOf[c]`: the previous class of class c, -1 for a new one, which
 * starts at 0), then `epochs` epochs run over the new data instead of the full count.
 */
export interface WarmStart {
  previous: ClassifierWeights;
  classOf: Int32Array;
  epochs: number;
}

/** Deterministic PRNG (mulberry32): the classifier's shuffles and the fit's folds. */
export function rng(seed: number): () => number {
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

/** Gradients smaller than this leave a class's weights alone for the example (most classes, after the first epoch). */
const GRADIENT_FLOOR = 1e-4;

/**
 * Adagrad SGD on the softmax loss, as a generator that yields the number of examples seen every
 * `yieldEvery` examples and returns the weights: the caller decides what happens in between (the
 * in-thread `SoftmaxClassifier.train` gives the event loop a turn, a worker checks its cancel flag).
 *
 * The rows are first rewritten into the compact column space (features below `minDf` dropped, each
 * feature stored as its weight row's offset), so the inner loops walk contiguous weight rows: the
 * prediction is nnz × classes multiply-adds, the update nnz × (classes whose gradient is not ~0).
 */
export function* softmaxTrainingSteps(
  data: SparseRows,
  labels: Int32Array,
  numClasses: number,
  buckets: number,
  opts: ClassifierHyperparameters = {},
  warm?: WarmStart,
): Generator<number, ClassifierWeights, void> {
  const epochs = warm !== undefined ? warm.epochs : (opts.epochs ?? 10);
  const lr = opts.learningRate ?? 1;
  const l2 = opts.l2 ?? 0;
  const minDf = opts.minDf ?? 2;
  const yieldEvery = Math.max(1, opts.yieldEvery ?? 1000);
  const rand = rng(opts.seed ?? 42);
  const C = numClasses;
  const n = data.offsets.length - 1;

  const df = new Int32Array(buckets);
  for (let i = 0; i < data.idx.length; i++) df[data.idx[i]]++;
  const column = new Int32Array(buckets).fill(-1);
  let cols = 0;
  for (let b = 0; b < buckets; b++) if (df[b] >= minDf) column[b] = cols++;
  const columnBuckets = new Int32Array(cols);
  for (let b = 0; b < buckets; b++) if (column[b] >= 0) columnBuckets[column[b]] = b;

  // Rows in the compact space: per non-zero, the column and its value.
  const offsets = new Int32Array(n + 1);
  const rowCol = new Int32Array(data.idx.length);
  const rowVal = new Float32Array(data.idx.length);
  let nnz = 0;
  for (let r = 0; r < n; r++) {
    for (let p = data.offsets[r]; p < data.offsets[r + 1]; p++) {
      const col = column[data.idx[p]];
      if (col < 0) continue;
      rowCol[nnz] = col;
      rowVal[nnz] = data.val[p];
      nnz++;
    }
    offsets[r + 1] = nnz;
  }

  const state: SgdState = {
    C,
    lr,
    l2,
    W: new Float32Array(cols * C),
    G: new Float32Array(cols),
    bias: new Float32Array(C),
    Gb: new Float32Array(C),
    p: new Float64Array(C),
    g: new Float64Array(C),
    active: new Int32Array(C),
  };
  if (warm !== undefined) continueFrom(warm, columnBuckets, buckets, state);
  const order = Array.from({ length: n }, (_, i) => i);
  let seen = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const row of order) {
      sgdStep(offsets[row], offsets[row + 1], labels[row], rowCol, rowVal, state);
      if (++seen % yieldEvery === 0) yield seen;
    }
  }
  return {
    numClasses: C,
    columnBuckets,
    weights: state.W,
    bias: state.bias,
    adagrad: { columns: state.G, bias: state.Gb },
    warmStarts: warm !== undefined ? (warm.previous.warmStarts ?? 0) + 1 : 0,
  };
}

/** Copies a previous model's weights and Adagrad state onto the new column space and classes. */
function continueFrom(warm: WarmStart, columnBuckets: Int32Array, buckets: number, s: SgdState): void {
  const { previous, classOf } = warm;
  const P = previous.numClasses;
  const { C, W, G, bias, Gb } = s;
  if (classOf.length !== C) throw new Error(`warm start maps ${classOf.length} classes, the data has ${C}`);
  const previousColumn = new Int32Array(buckets).fill(-1);
  previous.columnBuckets.forEach((b, col) => {
    if (b >= 0 && b < buckets) previousColumn[b] = col;
  });
  for (let col = 0; col < columnBuckets.length; col++) {
    const old = previousColumn[columnBuckets[col]];
    if (old < 0) continue;
    if (previous.adagrad !== undefined) G[col] = previous.adagrad.columns[old];
    for (let c = 0; c < C; c++) {
      const pc = classOf[c];
      if (pc >= 0 && pc < P) W[col * C + c] = previous.weights[old * P + pc];
    }
  }
  for (let c = 0; c < C; c++) {
    const pc = classOf[c];
    if (pc < 0 || pc >= P) continue;
    bias[c] = previous.bias[pc];
    if (previous.adagrad !== undefined) Gb[c] = previous.adagrad.bias[pc];
  }
}

interface SgdState {
  C: number;
  lr: number;
  l2: number;
  /** Weights, feature-major (`col * C + c`). */
  W: Float32Array;
  /** Adagrad accumulator per feature (shared by the classes: no second weight-sized matrix). */
  G: Float32Array;
  bias: Float32Array;
  Gb: Float32Array;
  /** Scratch: probabilities, gradients, classes with a gradient above the floor. */
  p: Float64Array;
  g: Float64Array;
  active: Int32Array;
}

/** One Adagrad step on the example spanning [start, end) of the compact rows, labelled `y`. */
function sgdStep(start: number, end: number, y: number, rowCol: Int32Array, rowVal: Float32Array, s: SgdState): void {
  const { C, lr, l2, W, G, bias, Gb, p, g, active } = s;
  // forward: logits, softmax
  for (let c = 0; c < C; c++) p[c] = bias[c];
  for (let q = start; q < end; q++) {
    const x = rowVal[q];
    const base = rowCol[q] * C;
    for (let c = 0; c < C; c++) p[c] += x * W[base + c];
  }
  let max = -Infinity;
  for (let c = 0; c < C; c++) if (p[c] > max) max = p[c];
  let sum = 0;
  for (let c = 0; c < C; c++) {
    const e = Math.exp(p[c] - max);
    p[c] = e;
    sum += e;
  }
  // gradient of the loss w.r.t. the logits
  let gsq = 0;
  let nActive = 0;
  for (let c = 0; c < C; c++) {
    const gc = p[c] / sum - (c === y ? 1 : 0);
    gsq += gc * gc;
    g[c] = gc;
    if (Math.abs(gc) >= GRADIENT_FLOOR) active[nActive++] = c;
  }
  for (let q = start; q < end; q++) {
    const x = rowVal[q];
    G[rowCol[q]] += gsq * x * x;
  }
  for (let a = 0; a < nActive; a++) {
    const c = active[a];
    Gb[c] += g[c] * g[c];
    bias[c] -= (lr * g[c]) / Math.sqrt(Gb[c] + 1e-8);
  }
  for (let q = start; q < end; q++) {
    const col = rowCol[q];
    const x = rowVal[q];
    const step = lr / Math.sqrt(G[col] + 1e-8);
    const base = col * C;
    for (let a = 0; a < nActive; a++) {
      const c = active[a];
      const k = base + c;
      W[k] -= step * (g[c] * x + l2 * W[k]);
    }
  }
}

/**
 * Runs the training steps to the end without yielding (a worker thread); `shouldStop` is asked at every
 * step with the number of examples seen so far (of epochs × rows: the caller may report progress).
 */
export function trainSoftmaxSync(
  data: SparseRows,
  labels: Int32Array,
  numClasses: number,
  buckets: number,
  opts: ClassifierHyperparameters = {},
  shouldStop: (seen: number) => boolean = () => false,
  warm?: WarmStart,
): ClassifierWeights | null {
  const steps = softmaxTrainingSteps(data, labels, numClasses, buckets, opts, warm);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    if (shouldStop(next.value)) return null;
  }
}

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
    /** The plain weights this model was built from (a warm start of the next training reads them). */
    readonly trained: ClassifierWeights | null = null,
  ) {}

  get parameterCount(): number {
    return this.weights.length + this.bias.length;
  }

  /** The model from weights trained elsewhere (a worker thread); `buckets` is the featurizer's bucket count. */
  static fromWeights(w: ClassifierWeights, buckets: number): SoftmaxClassifier {
    const cols = w.columnBuckets.length;
    if (w.weights.length !== cols * w.numClasses || w.bias.length !== w.numClasses) {
      throw new Error(`classifier weights do not fit: ${w.weights.length} weights for ${cols} columns × ${w.numClasses} classes`);
    }
    const column = new Int32Array(buckets).fill(-1);
    for (let col = 0; col < cols; col++) {
      const b = w.columnBuckets[col];
      if (b < 0 || b >= buckets) throw new Error(`classifier column bucket ${b} outside [0, ${buckets})`);
      column[b] = col;
    }
    return new SoftmaxClassifier(w.numClasses, column, w.weights, w.bias, w);
  }

  /** Trains on this thread, yielding to the event loop every `yieldEvery` examples. */
  static async train(data: SparseRows, labels: Int32Array, numClasses: number, buckets: number, opts: ClassifierTrainOptions = {}): Promise<SoftmaxClassifier> {
    const { signal, ...hyper } = opts;
    const steps = softmaxTrainingSteps(data, labels, numClasses, buckets, hyper);
    for (;;) {
      const next = steps.next();
      if (next.done === true) return SoftmaxClassifier.fromWeights(next.value, buckets);
      await yieldToLoop();
      signal?.throwIfAborted();
    }
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
