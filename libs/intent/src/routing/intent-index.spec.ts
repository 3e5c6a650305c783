import { describe, expect, it } from '@jest/globals';
import { CARRY_OVER_MIN_KNOWN_INTENTS, IntentIndex, MAX_WARM_STARTS, WARM_START_EPOCHS } from './intent-index.js';
import { trainSoftmaxSync } from './softmax-classifier.js';
import { rule } from './testing/fixtures.js';
import type { IntentRuleDef } from './types.js';

const WORDS = ['apple', 'river', 'castle', 'violin', 'tiger', 'rocket', 'garden', 'pepper', 'marble', 'copper', 'falcon', 'lantern'];

/** One intent per word, three examples each that share only that word's vocabulary. */
function intentRules(words: readonly string[]): IntentRuleDef[] {
  return words.map((w) => rule({ id: `R-${w}`, intent: w, semanticExamples: [`${w} please`, `i want ${w}`, `${w} ${w} now`] }));
}

/** Trains the index's classifier the way the API does: take the data, train it elsewhere, install the weights. */
function trainAndInstall(index: IntentIndex, version: string): void {
  const data = index.takeTrainingData({ epochs: 30, minDf: 1 });
  if (data === null) throw new Error('nothing to train');
  const weights = trainSoftmaxSync(data.rows, data.labels, data.numClasses, data.buckets, data.hyper);
  if (weights === null) throw new Error('stopped');
  index.installClassifier(weights, version);
}

const best = (index: IntentIndex, text: string): { intent: string | null; aggregation: string; version?: string } => {
  const s = index.scoreExamples(text, 'classifier', 3);
  if (s === null) throw new Error('no examples');
  let top = -1;
  for (let i = 0; i < s.scores.length; i++) if (s.scores[i] > 0 && (top < 0 || s.scores[i] > s.scores[top])) top = i;
  return {
    intent: top < 0 ? null : index.intents[top],
    aggregation: s.aggregation,
    ...(s.classifierVersion !== undefined ? { version: s.classifierVersion } : {}),
  };
};

describe('IntentIndex classifier hand-off (training elsewhere, carry-over)', () => {
  it('takes the training data once, then serves the installed weights under their version', () => {
    const index = IntentIndex.build(intentRules(WORDS.slice(0, 4)));
    expect(index.classifierState).toBe('none');
    expect(best(index, 'river please')).toEqual({ intent: 'river', aggregation: 'interim' });
    expect(index.interimIntentCount).toBe(4);
    trainAndInstall(index, 'v1');
    expect(index.takeTrainingData()).toBeNull();
    expect(index.classifierState).toBe('ready');
    expect(index.classifierVersion).toBe('v1');
    expect(best(index, 'river please')).toEqual({ intent: 'river', aggregation: 'classifier', version: 'v1' });
  });

  it('rejects weights of another class count', () => {
    const index = IntentIndex.build(intentRules(WORDS.slice(0, 3)));
    const other = IntentIndex.build(intentRules(WORDS.slice(0, 4)));
    const data = other.takeTrainingData({ epochs: 1, minDf: 1 });
    if (data === null) throw new Error('nothing to train');
    const weights = trainSoftmaxSync(data.rows, data.labels, data.numClasses, data.buckets, data.hyper);
    if (weights === null) throw new Error('stopped');
    expect(() => index.installClassifier(weights, 'x')).toThrow('4 classes, the index 3 intents');
  });

  it('a rebuilt index serves the previous classifier for the intents it knows until its own is installed', () => {
    const previous = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    trainAndInstall(previous, 'v1');
    // one intent added (9 of 10 known), one removed by being disabled, intents in another order
    const next = IntentIndex.build([...intentRules(WORDS.slice(1, 11)).reverse(), rule({ ...intentRules([WORDS[0]])[0], enabled: false })]);
    expect(next.intents).toHaveLength(10);
    expect(next.adoptClassifier(previous)).toBe(true);
    expect(next.classifierCarried).toBe(true);
    expect(next.classifierState).toBe('none');
    expect(best(next, 'castle please')).toEqual({ intent: 'castle', aggregation: 'classifier', version: 'v1' });
    // the new intent is unknown to the carried classifier: the interim matcher scores it by its examples
    expect(next.interimIntentCount).toBe(1);
    expect(best(next, 'falcon please')).toEqual({ intent: 'falcon', aggregation: 'classifier', version: 'v1' });
    expect(next.scoreExamples('falcon please', 'classifier', 3)?.interimIntents).toBe(1);
    // the removed intent is never a candidate
    expect(best(next, 'apple please').intent).not.toBe('apple');

    const data = next.takeTrainingData({ epochs: 30, minDf: 1 });
    expect(next.classifierState).toBe('training');
    if (data === null) throw new Error('nothing to train');
    const weights = trainSoftmaxSync(data.rows, data.labels, data.numClasses, data.buckets, data.hyper);
    if (weights === null) throw new Error('stopped');
    next.installClassifier(weights, 'v2');
    expect(next.classifierCarried).toBe(false);
    expect(next.interimIntentCount).toBe(0);
    expect(next.scoreExamples('falcon please', 'classifier', 3)?.interimIntents).toBeUndefined();
    expect(best(next, 'falcon please')).toEqual({ intent: 'falcon', aggregation: 'classifier', version: 'v2' });
  });

  it('carries over through a second rebuild before the first one trained (composed class mapping)', () => {
    const first = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    trainAndInstall(first, 'v1');
    const second = IntentIndex.build(intentRules(WORDS.slice(0, 10)).reverse());
    expect(second.adoptClassifier(first)).toBe(true);
    const third = IntentIndex.build([...intentRules(WORDS.slice(0, 10))].sort((a, b) => a.intent.localeCompare(b.intent)));
    expect(third.adoptClassifier(second)).toBe(true);
    for (const w of WORDS.slice(0, 10)) expect(best(third, `${w} please`)).toEqual({ intent: w, aggregation: 'classifier', version: 'v1' });
  });

  it('an intent whose examples changed is scored by the interim matcher, an unchanged one keeps the carried classifier', () => {
    const previous = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    trainAndInstall(previous, 'v1');
    // "tiger" is now taught by other examples: the carried classifier knows only its old ones
    const edited = intentRules(WORDS.slice(0, 10)).map((r) =>
      r.intent === 'tiger' ? { ...r, semanticExamples: ['zebra stripes', 'striped zebra please'] } : r,
    );
    const next = IntentIndex.build(edited);
    expect(next.adoptClassifier(previous)).toBe(true);
    expect(next.interimIntentCount).toBe(1);
    expect(best(next, 'zebra stripes please')).toEqual({ intent: 'tiger', aggregation: 'classifier', version: 'v1' });
    const unchanged = previous.scoreExamples('castle please', 'classifier', 3);
    const blended = next.scoreExamples('castle please', 'classifier', 3);
    if (unchanged === null || blended === null) throw new Error('no examples');
    const castle = (s: typeof unchanged, index: IntentIndex): number => s.scores[index.intents.indexOf('castle')];
    // a message near none of the changed intents keeps (almost exactly) the classifier's score
    expect(castle(blended, next)).toBeCloseTo(castle(unchanged, previous), 3);
    expect(best(next, 'castle please').intent).toBe('castle');
    // a further rebuild still counts "tiger" as changed (against what the carried classifier was trained on)
    const again = IntentIndex.build(edited);
    expect(again.adoptClassifier(next)).toBe(true);
    expect(again.interimIntentCount).toBe(1);
  });

  it(`does not carry over a classifier knowing fewer than ${CARRY_OVER_MIN_KNOWN_INTENTS * 100} % of the intents: the interim matcher serves`, () => {
    const previous = IntentIndex.build(intentRules(WORDS.slice(0, 4)));
    trainAndInstall(previous, 'v1');
    const next = IntentIndex.build(intentRules(WORDS.slice(0, 6)));
    expect(next.adoptClassifier(previous)).toBe(false);
    expect(best(next, 'river please').aggregation).toBe('interim');
    expect(next.classifierVersion).toBeNull();
  });

  it('trains a rebuilt index by continuing from the carried classifier, and from scratch after a chain of warm starts', () => {
    let index = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    expect(index.takeTrainingData({ minDf: 1 })?.warmStart).toBeUndefined();
    index = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    trainAndInstall(index, 'v0');
    const warmStarts: (number | undefined)[] = [];
    for (let v = 1; v <= MAX_WARM_STARTS + 1; v++) {
      const rules = intentRules(WORDS.slice(0, 10));
      const next = IntentIndex.build(v % 2 === 1 ? rules.reverse() : rules); // the intents' order flips every time
      expect(next.adoptClassifier(index)).toBe(true);
      const data = next.takeTrainingData({ minDf: 1 });
      if (data === null) throw new Error('nothing to train');
      warmStarts.push(data.warmStart?.epochs);
      if (data.warmStart !== undefined) {
        // classes mapped by name: the flipped order maps class i to the previous class 9 - i
        expect(Array.from(data.warmStart.classOf)).toEqual(Array.from({ length: 10 }, (_, i) => 9 - i));
      }
      const weights = trainSoftmaxSync(data.rows, data.labels, data.numClasses, data.buckets, data.hyper, () => false, data.warmStart);
      if (weights === null) throw new Error('stopped');
      next.installClassifier(weights, `v${v}`);
      expect(best(next, 'tiger please')).toEqual({ intent: 'tiger', aggregation: 'classifier', version: `v${v}` });
      index = next;
    }
    expect(warmStarts).toEqual([...Array.from({ length: MAX_WARM_STARTS }, () => WARM_START_EPOCHS), undefined]);
  });

  it('a failed training keeps the carried classifier serving', () => {
    const previous = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    trainAndInstall(previous, 'v1');
    const next = IntentIndex.build(intentRules(WORDS.slice(0, 10)));
    next.adoptClassifier(previous);
    expect(next.takeTrainingData()).not.toBeNull();
    next.classifierTrainingFailed();
    expect(next.classifierState).toBe('failed');
    expect(best(next, 'tiger please')).toEqual({ intent: 'tiger', aggregation: 'classifier', version: 'v1' });
  });

  it('serves raw centroid_knn when there is nothing to train (a single intent)', () => {
    const index = IntentIndex.build(intentRules(WORDS.slice(0, 1)));
    expect(index.classifierState).toBe('not_applicable');
    expect(index.interimIntentCount).toBe(0);
    const s = index.scoreExamples('apple please', 'classifier', 3);
    expect(s?.aggregation).toBe('centroid_knn');
    expect(s?.interimIntents).toBeUndefined();
  });
});
