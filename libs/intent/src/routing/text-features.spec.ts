import { describe, expect, it } from '@jest/globals';
import { HashingFeaturizer, normalizeText } from './text-features.js';
import { TfidfVectorizer } from './tfidf.js';

const dot = (a: Map<number, number>, b: Map<number, number>): number => {
  let s = 0;
  for (const [k, v] of a) s += v * (b.get(k) ?? 0);
  return s;
};

describe('HashingFeaturizer', () => {
  const f = new HashingFeaturizer({ bits: 18 });

  it('normalises case, width and apostrophes', () => {
    expect(normalizeText("What's ＡＢＣ")).toBe('whats abc');
    expect(f.features('Hello World')).toEqual(f.features('hello   WORLD!'));
  });

  it('emits word unigrams, bigrams and char 3-grams (count check)', () => {
    // "ab cd": 2 words + 1 bigram + "<ab>" 2 trigrams + "<cd>" 2 trigrams = 7 features (barring collisions)
    const m = f.features('ab cd');
    expect([...m.values()].reduce((s, v) => s + Math.abs(v), 0)).toBe(7);
    for (const b of m.keys()) expect(b).toBeLessThan(1 << 18);
  });

  it('emits Chinese char unigrams and bigrams, plus segmenter words when given', () => {
    expect([...f.features('机械臂').values()].reduce((s, v) => s + Math.abs(v), 0)).toBe(5);
    const seg = new HashingFeaturizer({ cjkSegmenter: () => ['机械臂', '了'] });
    expect([...seg.features('机械臂').values()].reduce((s, v) => s + Math.abs(v), 0)).toBe(6);
  });

  it('shares features between related texts and not between unrelated ones', () => {
    const a = f.features('cancel my order');
    expect(dot(a, f.features('please cancel the order'))).not.toBe(0);
    expect(dot(a, f.features('天气怎么样'))).toBe(0);
  });
});

describe('TfidfVectorizer', () => {
  it('produces L2-normalised vectors with IDF fitted on the examples', () => {
    const { vectorizer, rows } = TfidfVectorizer.fit(new HashingFeaturizer(), ['book a flight', 'book a table', 'cancel a flight']);
    let sq = 0;
    for (let i = rows.offsets[0]; i < rows.offsets[1]; i++) sq += rows.val[i] * rows.val[i];
    expect(sq).toBeCloseTo(1, 5);
    const q = vectorizer.transform('book');
    expect(q.val.reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 5);
    expect(vectorizer.transform('').idx).toHaveLength(0);
  });
});
