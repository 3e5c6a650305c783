import { describe, expect, it } from '@jest/globals';
import { HashingFeaturizer } from '../routing/text-features.js';
import { TfidfVectorizer } from '../routing/tfidf.js';
import { trainSoftmaxSync } from '../routing/softmax-classifier.js';
import { decodeTrainingJob, encodeTrainingJob, trainingSteps, weightsTransferList, type TrainingJob } from './training-job.js';

const texts = ['book a flight to paris', 'reserve a plane ticket', 'flight booking please', 'what is the weather', 'will it rain today', 'weather forecast'];
const featurizer = new HashingFeaturizer({ bits: 12 });

function job(): TrainingJob {
  const { rows } = TfidfVectorizer.fit(featurizer, texts);
  return { rows, labels: Int32Array.from([0, 0, 0, 1, 1, 1]), numClasses: 2, buckets: featurizer.buckets, hyper: { epochs: 5, minDf: 1, seed: 9 } };
}

describe('training job serialisation', () => {
  it('transfers the arrays (the sender keeps no access) and trains to the same weights on the other side', () => {
    const original = job();
    const direct = trainSoftmaxSync(original.rows, original.labels, 2, original.buckets, original.hyper);
    const sent = job();
    const { job: encoded, transfer } = encodeTrainingJob(sent);
    expect(transfer).toHaveLength(4);
    const received = structuredClone(encoded, { transfer });
    // moved, not copied: the sender's arrays are detached
    expect(encoded.rows.idx.length).toBe(0);
    expect(encoded.labels.length).toBe(0);
    const decoded = decodeTrainingJob(received);
    expect(decoded.hyper).toEqual({ epochs: 5, minDf: 1, seed: 9 });
    const remote = trainSoftmaxSync(decoded.rows, decoded.labels, decoded.numClasses, decoded.buckets, decoded.hyper);
    expect(direct).not.toBeNull();
    expect(remote).not.toBeNull();
    expect(Array.from(remote?.weights ?? [])).toEqual(Array.from(direct?.weights ?? []));
    expect(Array.from(remote?.bias ?? [])).toEqual(Array.from(direct?.bias ?? []));
    expect(Array.from(remote?.columnBuckets ?? [])).toEqual(Array.from(direct?.columnBuckets ?? []));
  });

  it('copies a view into a larger buffer instead of detaching the whole buffer', () => {
    const j = job();
    const big = new Int32Array(100).fill(1);
    const labels = big.subarray(10, 16);
    const { job: encoded, transfer } = encodeTrainingJob({ ...j, labels });
    structuredClone(encoded, { transfer });
    expect(big.length).toBe(100);
    expect(labels.length).toBe(6);
  });

  it('shares a progress counter (not transferred) and refuses one that is not over a SharedArrayBuffer', () => {
    const progress = new Int32Array(new SharedArrayBuffer(4));
    const { job: encoded, transfer } = encodeTrainingJob({ ...job(), progress });
    expect(transfer).toHaveLength(4);
    const decoded = decodeTrainingJob(structuredClone(encoded, { transfer }));
    Atomics.store(decoded.progress ?? new Int32Array(1), 0, 7);
    expect(Atomics.load(progress, 0)).toBe(7);
    expect(() => decodeTrainingJob({ ...job(), progress: new Int32Array(1) })).toThrow('progress is not an Int32Array over a SharedArrayBuffer');
  });

  it("counts a job's steps: epochs × rows, 3 epochs from a warm start", () => {
    const j = job();
    expect(trainingSteps(j)).toBe(5 * texts.length);
    expect(trainingSteps({ ...j, hyper: {} })).toBe(10 * texts.length);
    const previous = trainSoftmaxSync(j.rows, j.labels, 2, j.buckets, j.hyper);
    if (previous === null) throw new Error('stopped');
    expect(trainingSteps({ ...j, warmStart: { previous, classOf: Int32Array.from([0, 1]), epochs: 3 } })).toBe(3 * texts.length);
  });

  it('lists the trained weights for transfer back', () => {
    const j = job();
    const w = trainSoftmaxSync(j.rows, j.labels, 2, j.buckets, j.hyper);
    if (w === null) throw new Error('not trained');
    expect(weightsTransferList(w)).toEqual([w.columnBuckets.buffer, w.weights.buffer, w.bias.buffer, w.adagrad?.columns.buffer, w.adagrad?.bias.buffer]);
  });

  it('copies a warm start (the previous model keeps serving on the sending side) and checks it on the other', () => {
    const j = job();
    const previous = trainSoftmaxSync(j.rows, j.labels, 2, j.buckets, j.hyper);
    if (previous === null) throw new Error('stopped');
    const warmStart = { previous, classOf: Int32Array.from([1, 0]), epochs: 2 };
    const { job: encoded, transfer } = encodeTrainingJob({ ...job(), warmStart });
    expect(transfer).toHaveLength(4);
    const decoded = decodeTrainingJob(structuredClone(encoded, { transfer }));
    expect(previous.weights.length).toBeGreaterThan(0);
    expect(Array.from(decoded.warmStart?.previous.weights ?? [])).toEqual(Array.from(previous.weights));
    expect(Array.from(decoded.warmStart?.classOf ?? [])).toEqual([1, 0]);
    const bad: [Partial<typeof warmStart>, RegExp][] = [
      [{ classOf: Int32Array.from([0]) }, /must map the 2 classes/],
      [{ classOf: Int32Array.from([0, 2]) }, /classOf 2 outside \[-1, 2\)/],
      [{ epochs: 0 }, /warmStart.epochs 0/],
      [{ previous: { ...previous, bias: new Float32Array(5) } }, /do not fit/],
      [{ previous: { ...previous, adagrad: { columns: new Float32Array(1), bias: new Float32Array(2) } } }, /adagrad does not fit/],
    ];
    for (const [change, message] of bad) expect(() => decodeTrainingJob({ ...job(), warmStart: { ...warmStart, ...change } })).toThrow(message);
  });

  const broken: [string, (j: TrainingJob) => unknown, RegExp][] = [
    ['not an object', () => null, /not an object/],
    ['rows as plain arrays', (j) => ({ ...j, rows: { ...j.rows, idx: Array.from(j.rows.idx) } }), /typed arrays/],
    ['labels as Float32Array', (j) => ({ ...j, labels: Float32Array.from(j.labels) }), /Int32Array/],
    ['one class', (j) => ({ ...j, numClasses: 1 }), /numClasses/],
    ['fewer labels than rows', (j) => ({ ...j, labels: j.labels.slice(1) }), /5 labels for 6 rows/],
    ['a label out of range', (j) => ({ ...j, labels: Int32Array.from([0, 0, 0, 1, 1, 2]) }), /label 2 outside/],
    ['a bucket out of range', (j) => ({ ...j, buckets: 4 }), /bucket \d+ outside \[0, 4\)/],
    ['offsets not spanning idx', (j) => ({ ...j, rows: { ...j.rows, idx: j.rows.idx.slice(1), val: j.rows.val.slice(1) } }), /offsets do not span/],
    ['idx and val of different lengths', (j) => ({ ...j, rows: { ...j.rows, val: j.rows.val.slice(1) } }), /differ in length/],
  ];
  it.each(broken)('rejects a job with %s', (_name, mutate, message) => {
    expect(() => decodeTrainingJob(mutate(job()))).toThrow(message);
  });
});
