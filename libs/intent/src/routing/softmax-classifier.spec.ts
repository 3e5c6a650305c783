import { describe, expect, it } from '@jest/globals';
import { HashingFeaturizer } from './text-features.js';
import { SoftmaxClassifier, trainSoftmaxSync } from './softmax-classifier.js';
import { TfidfVectorizer } from './tfidf.js';

describe('SoftmaxClassifier', () => {
  const texts = ['book a flight to paris', 'reserve a plane ticket', 'flight booking please', 'what is the weather', 'will it rain today', 'weather forecast'];
  const labels = Int32Array.from([0, 0, 0, 1, 1, 1]);
  const featurizer = new HashingFeaturizer({ bits: 16 });
  const { vectorizer, rows } = TfidfVectorizer.fit(featurizer, texts);

  it('learns separable intents and outputs a probability distribution', async () => {
    const model = await SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { epochs: 20, minDf: 1 });
    const p = new Float32Array(2);
    model.predictInto(vectorizer.transform('book me a flight'), p);
    expect(p[0] + p[1]).toBeCloseTo(1, 5);
    expect(p[0]).toBeGreaterThan(0.6);
    model.predictInto(vectorizer.transform('rain forecast'), p);
    expect(p[1]).toBeGreaterThan(0.6);
  });

  it('is deterministic for a seed, yields to the event loop and can be aborted', async () => {
    const a = await SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { seed: 3, minDf: 1 });
    const b = await SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { seed: 3, minDf: 1 });
    const pa = new Float32Array(2);
    const pb = new Float32Array(2);
    a.predictInto(vectorizer.transform('weather'), pa);
    b.predictInto(vectorizer.transform('weather'), pb);
    expect(Array.from(pa)).toEqual(Array.from(pb));
    const controller = new AbortController();
    controller.abort(new Error('rules changed'));
    await expect(SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { yieldEvery: 1, signal: controller.signal })).rejects.toThrow('rules changed');
  });

  it('trains synchronously to the same model (a worker thread), stops when asked, and rebuilds from plain weights', async () => {
    const inThread = await SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { seed: 4, minDf: 1 });
    const weights = trainSoftmaxSync(rows, labels, 2, featurizer.buckets, { seed: 4, minDf: 1 });
    if (weights === null) throw new Error('stopped');
    const rebuilt = SoftmaxClassifier.fromWeights(weights, featurizer.buckets);
    const pa = new Float32Array(2);
    const pb = new Float32Array(2);
    inThread.predictInto(vectorizer.transform('plane ticket'), pa);
    rebuilt.predictInto(vectorizer.transform('plane ticket'), pb);
    expect(Array.from(pb)).toEqual(Array.from(pa));
    let asked = 0;
    expect(trainSoftmaxSync(rows, labels, 2, featurizer.buckets, { yieldEvery: 1, minDf: 1 }, () => ++asked === 3)).toBeNull();
    expect(asked).toBe(3);
    expect(() => SoftmaxClassifier.fromWeights({ ...weights, bias: new Float32Array(3) }, featurizer.buckets)).toThrow('do not fit');
    expect(() => SoftmaxClassifier.fromWeights(weights, 4)).toThrow('outside');
  });

  it('continues from a previous model (warm start): old classes kept, a new class learnt in a few epochs', () => {
    const previous = trainSoftmaxSync(rows, labels, 2, featurizer.buckets, { epochs: 20, minDf: 1 });
    if (previous === null) throw new Error('stopped');
    expect(previous.warmStarts).toBe(0);
    const more = [...texts, 'play some music', 'put on a song', 'music please'];
    const fit = TfidfVectorizer.fit(featurizer, more);
    // the new class first, the old ones after it: classOf maps them back
    const moreLabels = Int32Array.from([1, 1, 1, 2, 2, 2, 0, 0, 0]);
    const classOf = Int32Array.from([-1, 0, 1]);
    const warm = trainSoftmaxSync(fit.rows, moreLabels, 3, featurizer.buckets, { minDf: 1 }, () => false, { previous, classOf, epochs: 3 });
    if (warm === null) throw new Error('stopped');
    expect(warm.warmStarts).toBe(1);
    const model = SoftmaxClassifier.fromWeights(warm, featurizer.buckets);
    const p = new Float32Array(3);
    const argmax = (text: string): number => {
      model.predictInto(fit.vectorizer.transform(text), p);
      return p.indexOf(Math.max(...p));
    };
    expect(argmax('some music please')).toBe(0);
    expect(argmax('book me a flight')).toBe(1);
    expect(argmax('rain forecast')).toBe(2);
    expect(() =>
      trainSoftmaxSync(fit.rows, moreLabels, 3, featurizer.buckets, {}, () => false, { previous, classOf: Int32Array.from([0, 1]), epochs: 1 }),
    ).toThrow('maps 2 classes');
  });

  it('keeps only features seen in at least minDf examples', async () => {
    const all = await SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { minDf: 1, epochs: 1 });
    const pruned = await SoftmaxClassifier.train(rows, labels, 2, featurizer.buckets, { minDf: 2, epochs: 1 });
    expect(pruned.parameterCount).toBeLessThan(all.parameterCount);
  });
});
