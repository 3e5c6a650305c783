import { describe, expect, it } from '@jest/globals';
import { SEMANTIC_AGGREGATIONS } from './config.js';
import { IntentIndex } from './intent-index.js';
import { SemanticMatcher, type TextEmbedder } from './semantic-matcher.js';
import { rule } from './testing/fixtures.js';

const rules = [
  rule({ id: 'R-card', intent: 'card_lost', semanticExamples: ['i lost my card', 'my card was stolen', 'cannot find my bank card'] }),
  rule({ id: 'R-bal', intent: 'balance', semanticExamples: ['what is my balance', 'how much money do i have', 'show account balance'] }),
  rule({ id: 'R-fx', intent: 'exchange_rate', semanticExamples: ['what is the exchange rate', 'euro to dollar rate today'] }),
  rule({ id: 'R-zh', intent: 'arm_fault', semanticExamples: ['机械臂不动了', '机械臂报警怎么办'] }),
];
const opts = { topK: 3, aggregation: 'topk_mean' as const, exampleK: 3 };

describe('SemanticMatcher, mode B (examples)', () => {
  const index = IntentIndex.build(rules);
  const matcher = new SemanticMatcher(index);

  it.each(SEMANTIC_AGGREGATIONS.filter((a) => a !== 'classifier'))('ranks the right intent first with %s', async (aggregation) => {
    const res = await matcher.match('I think my card got stolen', { ...opts, aggregation });
    expect(res.topCandidates[0].intent).toBe('card_lost');
    expect(res.aggregation).toBe(aggregation);
  });

  it('explains each candidate with its nearest example and rule', async () => {
    const res = await matcher.match('how much money is in my account', opts);
    expect(res.topCandidates[0]).toMatchObject({ intent: 'balance', source: 'examples', ruleId: 'R-bal', nearestExample: 'how much money do i have' });
    expect(res.topCandidates.length).toBeLessThanOrEqual(3);
    for (const c of res.topCandidates) {
      expect(c.score).toBeGreaterThan(0);
      expect(c.score).toBeLessThanOrEqual(1);
    }
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('matches Chinese through char n-grams', async () => {
    const res = await matcher.match('我的机械臂不动', opts);
    expect(res.topCandidates[0].intent).toBe('arm_fault');
  });

  it('returns topK at most and nothing for an unrelated message', async () => {
    expect((await matcher.match('card balance rate', { ...opts, topK: 2 })).topCandidates).toHaveLength(2);
    expect((await matcher.match('zzzz qqqq', opts)).topCandidates).toEqual([]);
  });

  it('mean is the average over all examples of the intent, max the best one', async () => {
    const one = IntentIndex.build([
      rule({ intent: 'a', semanticExamples: ['alpha beta', 'xyz qqq'] }),
      rule({ intent: 'b', semanticExamples: ['other words'] }),
    ]);
    const m = new SemanticMatcher(one);
    const max = (await m.match('alpha beta', { ...opts, aggregation: 'max' })).topCandidates[0];
    const mean = (await m.match('alpha beta', { ...opts, aggregation: 'mean' })).topCandidates[0];
    expect(max.score).toBeCloseTo(1, 4);
    expect(mean.score).toBeCloseTo(0.5, 4);
  });

  it('serves classifier by the interim matcher until trained, then by the trained model', async () => {
    const idx = IntentIndex.build(rules);
    const m = new SemanticMatcher(idx);
    const interim = await m.match('my card was stolen', { ...opts, aggregation: 'classifier' });
    expect(interim.aggregation).toBe('interim');
    expect(interim.interimIntents).toBe(idx.intents.length);
    expect(interim.topCandidates[0].intent).toBe('card_lost');
    const training = idx.trainClassifier({ epochs: 30 });
    expect(idx.classifierState).toBe('training');
    await training;
    expect(idx.classifierState).toBe('ready');
    const res = await m.match('my card was stolen', { ...opts, aggregation: 'classifier' });
    expect(res.aggregation).toBe('classifier');
    expect(res.topCandidates[0].intent).toBe('card_lost');
    expect(res.topCandidates[0].nearestExample).toBe('my card was stolen');
  });

  it('does not train a classifier for a single intent', () => {
    expect(IntentIndex.build([rule({ intent: 'a', semanticExamples: ['x y'] })]).classifierState).toBe('not_applicable');
  });
});

describe('SemanticMatcher, mode A (intent vectors) and skips', () => {
  const embedder = (vec: number[] | Error): TextEmbedder => ({
    dimension: 2,
    embed: async () => {
      if (vec instanceof Error) throw vec;
      return vec;
    },
  });

  it('scores cosine to intent vectors, clamped to [0, 1]', async () => {
    const idx = IntentIndex.build([rule({ id: 'V1', intent: 'up', intentVector: [0, 1] }), rule({ intent: 'down', intentVector: [0, -1] })]);
    const res = await new SemanticMatcher(idx, embedder([0.6, 0.8])).match('anything', opts);
    expect(res.topCandidates).toEqual([{ intent: 'up', score: 0.8, source: 'vector', ruleId: 'V1' }]);
  });

  it('takes the better of both modes per intent', async () => {
    const idx = IntentIndex.build([
      rule({ intent: 'up', intentVector: [0, 1], semanticExamples: ['going up'] }),
      rule({ intent: 'x', semanticExamples: ['xx'] }),
    ]);
    const res = await new SemanticMatcher(idx, embedder([0, 1])).match('going up', opts);
    expect(res.topCandidates[0]).toMatchObject({ intent: 'up', score: 1 });
  });

  it('leaves out vectors of the wrong dimension at build time', () => {
    const idx = IntentIndex.build([rule({ id: 'bad', intent: 'a', intentVector: [1, 0, 0] })], { vectorDimension: 2 });
    expect(idx.hasVectors).toBe(false);
    expect(idx.skippedVectors).toEqual(['bad']);
  });

  it.each([
    ['no examples or vectors', [rule({ intent: 'a', keywords: ['k'] })], undefined, 'no_examples_or_vectors'],
    ['vectors but no embedder', [rule({ intent: 'a', intentVector: [1, 0] })], undefined, 'no_embedder'],
    ['embedding failure with vectors only', [rule({ intent: 'a', intentVector: [1, 0] })], embedder(new Error('down')), 'embedding_failed'],
  ] as const)('skips with a reason: %s', async (_n, rs, emb, reason) => {
    const res = await new SemanticMatcher(IntentIndex.build(rs), emb).match('hello', opts);
    expect(res.skipped).toBe(reason);
    expect(res.topCandidates).toEqual([]);
  });

  it('skips an empty message', async () => {
    expect((await new SemanticMatcher(IntentIndex.build(rules)).match('   ', opts)).skipped).toBe('empty_message');
  });

  it('keeps mode B results and records the error when only the embedding fails', async () => {
    const idx = IntentIndex.build([
      rule({ intent: 'a', intentVector: [1, 0], semanticExamples: ['hello there'] }),
      rule({ intent: 'b', semanticExamples: ['bye'] }),
    ]);
    const res = await new SemanticMatcher(idx, embedder(new Error('down'))).match('hello there', opts);
    expect(res.skipped).toBeUndefined();
    expect(res.error).toMatch(/embedding failed: down/);
    expect(res.topCandidates[0].intent).toBe('a');
  });
});

describe('SemanticMatcher, classifier gate', () => {
  it('offers no candidate for a message sharing no feature with any example', async () => {
    const idx = IntentIndex.build(rules);
    await idx.trainClassifier();
    const m = new SemanticMatcher(idx);
    expect((await m.match('zzzz qqqq', { ...opts, aggregation: 'classifier' })).topCandidates).toEqual([]);
    const res = await m.match('lost card', { ...opts, aggregation: 'classifier' });
    expect(res.topCandidates.every((c) => c.nearestExample !== undefined)).toBe(true);
  });
});

describe('SemanticMatcher, mode B on provider example vectors', () => {
  const emb: TextEmbedder = { dimension: 2, embed: async (t) => (t.includes('up') ? [0.2, 0.98] : [1, 0.1]) };
  const withVectors = [
    rule({
      id: 'U',
      intent: 'up',
      semanticExamples: ['rise', 'climb'],
      exampleVectors: [
        [0, 1],
        [0.2, 0.98],
      ],
    }),
    rule({
      id: 'D',
      intent: 'down',
      semanticExamples: ['fall', 'drop'],
      exampleVectors: [
        [1, 0],
        [0.98, 0.2],
      ],
    }),
  ];

  it('scores the message embedding against the stored example embeddings', async () => {
    const idx = IntentIndex.build(withVectors, { vectorDimension: 2 });
    expect(idx.denseExamples?.size).toBe(4);
    const res = await new SemanticMatcher(idx, emb).match('going up', { ...opts, aggregation: 'max' });
    expect(res.topCandidates[0]).toMatchObject({ intent: 'up', source: 'example_vectors', ruleId: 'U', nearestExample: 'climb' });
    expect(res.topCandidates[0].score).toBeGreaterThan(0.99);
  });

  it('ignores example vectors of the wrong dimension or count', () => {
    const idx = IntentIndex.build([rule({ id: 'X', intent: 'x', semanticExamples: ['a', 'b'], exampleVectors: [[1, 0]] })], { vectorDimension: 2 });
    expect(idx.denseExamples).toBeNull();
    expect(idx.skippedVectors).toEqual(['X']);
  });
});
