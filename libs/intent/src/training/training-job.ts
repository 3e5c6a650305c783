import type { ClassifierHyperparameters, ClassifierWeights, WarmStart } from '../routing/softmax-classifier.js';
import type { SparseRows } from '../routing/sparse.js';

/**
 * One classifier training, as plain data: the tenant's TF-IDF example rows (CSR), one label per row,
 * the class and bucket counts, and the hyperparameters. It crosses to a worker thread by
 * `postMessage` with its typed arrays' buffers *transferred* (moved, not copied).
 */
export interface TrainingJob {
  rows: SparseRows;
  labels: Int32Array;
  numClasses: number;
  buckets: number;
  hyper: ClassifierHyperparameters;
  /** Continue from the previous rule set's model (copied, not transferred: it keeps serving meanwhile). */
  warmStart?: WarmStart;
  /**
   * Progress for the submitter (an Int32Array of 1 over a SharedArrayBuffer: shared, never transferred):
   * the thread stores 0 when it starts the job, then the examples seen (see {@link trainingSteps}).
   */
  progress?: Int32Array;
}

/** How many example steps a job takes: its epochs (3 from a warm start, else `hyper.epochs`, default 10) × rows. */
export function trainingSteps(job: Pick<TrainingJob, 'rows' | 'hyper' | 'warmStart'>): number {
  return (job.warmStart?.epochs ?? job.hyper.epochs ?? 10) * (job.rows.offsets.length - 1);
}

/** Given to a training thread when it starts. */
export interface TrainingWorkerData {
  /** Linux niceness of the training thread (0: as the API's threads; 1–19: lower priority). */
  niceness: number;
}

/** Main thread → worker. `cancel` is an Int32Array over a SharedArrayBuffer: set to 1 to stop the job early. */
export interface TrainRequest {
  type: 'train';
  id: number;
  job: TrainingJob;
  cancel: SharedArrayBuffer;
}

/** Worker → main thread. */
export type TrainReply =
  { type: 'trained'; id: number; weights: ClassifierWeights; ms: number } | { type: 'stopped'; id: number } | { type: 'failed'; id: number; message: string };

type Typed = Int32Array | Float32Array;

/** Realm-independent type checks (a worker's or jest's typed arrays come from another realm than this module's constructors). */
const tag = (x: unknown): string => Object.prototype.toString.call(x);
const isPlainBuffer = (b: ArrayBufferLike): b is ArrayBuffer => tag(b) === '[object ArrayBuffer]';

/**
 * A typed array that owns its whole buffer can be transferred; a view into a larger buffer (e.g. a
 * `subarray`) is copied first, so transferring never detaches memory the sender still uses elsewhere.
 */
function owned<T extends Typed>(a: T): T {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && isPlainBuffer(a.buffer) ? a : (a.slice() as T);
}

function transferList(arrays: readonly Typed[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const a of arrays) if (isPlainBuffer(a.buffer) && a.buffer.byteLength > 0) buffers.add(a.buffer);
  return [...buffers];
}

/**
 * The job's arrays, each owning its buffer, and the list of buffers to transfer. After
 * `postMessage(message, transfer)` the sender's arrays are detached (length 0): the job is the worker's.
 */
export function encodeTrainingJob(job: TrainingJob): { job: TrainingJob; transfer: ArrayBuffer[] } {
  const rows: SparseRows = { offsets: owned(job.rows.offsets), idx: owned(job.rows.idx), val: owned(job.rows.val) };
  const labels = owned(job.labels);
  const encoded: TrainingJob = {
    rows,
    labels,
    numClasses: job.numClasses,
    buckets: job.buckets,
    hyper: { ...job.hyper },
    ...(job.warmStart !== undefined ? { warmStart: job.warmStart } : {}),
    ...(job.progress !== undefined ? { progress: job.progress } : {}),
  };
  return { job: encoded, transfer: transferList([rows.offsets, rows.idx, rows.val, labels]) };
}

/** Checks a job received from another thread (shapes, ranges) before training on it; throws on the first problem. */
export function decodeTrainingJob(value: unknown): TrainingJob {
  const job = value as TrainingJob;
  const fail = (what: string): never => {
    throw new Error(`invalid training job: ${what}`);
  };
  if (typeof job !== 'object' || job === null) fail('not an object');
  const { rows, labels, numClasses, buckets } = job;
  if (typeof rows !== 'object' || rows === null) fail('rows missing');
  if (tag(rows.offsets) !== '[object Int32Array]' || tag(rows.idx) !== '[object Int32Array]' || tag(rows.val) !== '[object Float32Array]')
    fail('rows are not typed arrays');
  if (tag(labels) !== '[object Int32Array]') fail('labels are not an Int32Array');
  if (!Number.isInteger(numClasses) || numClasses < 2) fail(`numClasses ${numClasses}`);
  if (!Number.isInteger(buckets) || buckets < 1) fail(`buckets ${buckets}`);
  const n = rows.offsets.length - 1;
  if (n < 1) fail('no rows');
  if (labels.length !== n) fail(`${labels.length} labels for ${n} rows`);
  if (rows.idx.length !== rows.val.length) fail('idx and val differ in length');
  if (rows.offsets[0] !== 0 || rows.offsets[n] !== rows.idx.length) fail('offsets do not span idx');
  for (let r = 0; r < n; r++) if (rows.offsets[r + 1] < rows.offsets[r]) fail(`offsets decrease at row ${r}`);
  for (let i = 0; i < rows.idx.length; i++) if (rows.idx[i] < 0 || rows.idx[i] >= buckets) fail(`bucket ${rows.idx[i]} outside [0, ${buckets})`);
  for (let r = 0; r < n; r++) if (labels[r] < 0 || labels[r] >= numClasses) fail(`label ${labels[r]} outside [0, ${numClasses})`);
  const hyper = typeof job.hyper === 'object' && job.hyper !== null ? job.hyper : {};
  const progress = job.progress;
  if (progress !== undefined && (tag(progress) !== '[object Int32Array]' || tag(progress.buffer) !== '[object SharedArrayBuffer]' || progress.length < 1)) {
    fail('progress is not an Int32Array over a SharedArrayBuffer');
  }
  const shared = progress !== undefined ? { progress } : {};
  if (job.warmStart === undefined) return { rows, labels, numClasses, buckets, hyper, ...shared };
  const { previous, classOf, epochs } = job.warmStart;
  if (typeof previous !== 'object' || previous === null) fail('warmStart.previous missing');
  const P = previous.numClasses;
  if (!Number.isInteger(P) || P < 1) fail(`warmStart.previous.numClasses ${P}`);
  if (
    tag(previous.columnBuckets) !== '[object Int32Array]' ||
    tag(previous.weights) !== '[object Float32Array]' ||
    tag(previous.bias) !== '[object Float32Array]'
  ) {
    fail('warmStart.previous arrays are not typed arrays');
  }
  const cols = previous.columnBuckets.length;
  if (previous.weights.length !== cols * P || previous.bias.length !== P) fail('warmStart.previous weights do not fit its columns and classes');
  const adagrad = previous.adagrad;
  if (adagrad !== undefined && (adagrad.columns?.length !== cols || adagrad.bias?.length !== P)) fail('warmStart.previous.adagrad does not fit');
  if (tag(classOf) !== '[object Int32Array]' || classOf.length !== numClasses) fail(`warmStart.classOf must map the ${numClasses} classes`);
  for (let c = 0; c < classOf.length; c++) if (classOf[c] < -1 || classOf[c] >= P) fail(`warmStart.classOf ${classOf[c]} outside [-1, ${P})`);
  if (!Number.isInteger(epochs) || epochs < 1) fail(`warmStart.epochs ${epochs}`);
  return { rows, labels, numClasses, buckets, hyper, warmStart: { previous, classOf, epochs }, ...shared };
}

/** The trained weights' buffers (each owns its buffer: allocated by the trainer), to transfer back. */
export function weightsTransferList(w: ClassifierWeights): ArrayBuffer[] {
  return transferList([w.columnBuckets, w.weights, w.bias, ...(w.adagrad !== undefined ? [w.adagrad.columns, w.adagrad.bias] : [])]);
}
