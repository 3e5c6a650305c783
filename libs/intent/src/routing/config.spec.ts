import { describe, expect, it } from '@jest/globals';
import { DEFAULT_INTENT_CONFIG, mergeIntentConfig, validateIntentConfig, type ConfigErrorCode } from './config.js';

describe('DEFAULT_INTENT_CONFIG', () => {
  it('has the defaults of docs/spec/intent-routing.md', () => {
    expect(DEFAULT_INTENT_CONFIG).toMatchObject({
      weights: { rule: 0.5, semantic: 0.3, llm: 0.2 },
      semanticThreshold: 0.7,
      conflictThreshold: 0.2,
      grayZoneThreshold: 0.6,
      minTriggerThreshold: 0.3,
      clarifyThreshold: 0.4,
      multiIntentThreshold: 0.15,
      llmJudgeEnabled: true,
      semanticMatcherEnabled: true,
      semanticMatcherTimeoutMs: 100,
      llmJudgeTimeoutMs: 2000,
      semanticTopK: 3,
      calibration: null,
    });
  });
});

describe('validateIntentConfig', () => {
  const valid: [string, unknown][] = [
    ['empty override', {}],
    ['thresholds at the bounds', { semanticThreshold: 0, clarifyThreshold: 1 }],
    ['partial weights', { weights: { llm: 0 } }],
    ['all weights but one zero', { weights: { rule: 0, semantic: 0, llm: 0.1 } }],
    ['every aggregation', { semanticAggregation: 'topk_mean' }],
    ['booleans and integers', { llmJudgeEnabled: false, semanticTopK: 5, llmJudgeTimeoutMs: 500 }],
    ['a calibration map', { calibration: { method: 'isotonic', x: [0.2, 0.8], y: [0.1, 0.9], samples: 40 } }],
    ['calibration removed', { calibration: null }],
  ];
  it.each(valid)('accepts %s', (_name, input) => {
    expect(validateIntentConfig(input)).toEqual({ ok: true, value: input });
  });

  const invalid: [string, unknown, string, ConfigErrorCode][] = [
    ['threshold above 1', { semanticThreshold: 1.2 }, 'semanticThreshold', 'out_of_range'],
    ['threshold below 0', { clarifyThreshold: -0.1 }, 'clarifyThreshold', 'out_of_range'],
    ['threshold not a number', { conflictThreshold: '0.2' }, 'conflictThreshold', 'invalid_type'],
    ['NaN threshold', { grayZoneThreshold: Number.NaN }, 'grayZoneThreshold', 'invalid_type'],
    ['negative weight', { weights: { rule: -1 } }, 'weights.rule', 'out_of_range'],
    ['weight above 1', { weights: { semantic: 1.01 } }, 'weights.semantic', 'out_of_range'],
    ['huge weight (1.7e308)', { weights: { rule: 1.7e308 } }, 'weights.rule', 'out_of_range'],
    ['infinite weight', { weights: { llm: Number.POSITIVE_INFINITY } }, 'weights.llm', 'invalid_type'],
    ['zero weight sum', { weights: { rule: 0, semantic: 0, llm: 0 } }, 'weights', 'weights_sum_not_positive'],
    ['unknown weight', { weights: { vibes: 1 } }, 'weights.vibes', 'unknown_key'],
    ['unknown key', { semanticThreshhold: 0.5 }, 'semanticThreshhold', 'unknown_key'],
    ['boolean as string', { llmJudgeEnabled: 'yes' }, 'llmJudgeEnabled', 'invalid_type'],
    ['fractional top-k', { semanticTopK: 2.5 }, 'semanticTopK', 'invalid_type'],
    ['zero timeout', { llmJudgeTimeoutMs: 0 }, 'llmJudgeTimeoutMs', 'out_of_range'],
    ['unknown aggregation', { semanticAggregation: 'median' }, 'semanticAggregation', 'invalid_type'],
    ['weights not an object', { weights: [1, 2, 3] }, 'weights', 'invalid_type'],
    ['descending calibration', { calibration: { method: 'isotonic', x: [0.2, 0.8], y: [0.9, 0.1] } }, 'calibration', 'invalid_type'],
  ];
  it.each(invalid)('rejects %s', (_name, input, field, code) => {
    const res = validateIntentConfig(input);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.errors).toContainEqual(expect.objectContaining({ field, code }));
  });

  it('without a base checks the override alone: the weights’ sum waits for the stored config', () => {
    const zero = { weights: { rule: 0, semantic: 0, llm: 0 } };
    expect(validateIntentConfig(zero, null)).toEqual({ ok: true, value: zero });
    const res = validateIntentConfig({ ...zero, semanticThreshold: 2 }, null);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.errors.map((e) => e.code)).toEqual(['out_of_range']);
  });

  it('rejects a non-object', () => {
    expect(validateIntentConfig(null).ok).toBe(false);
    expect(validateIntentConfig([]).ok).toBe(false);
  });

  it('reports every error, not only the first', () => {
    const res = validateIntentConfig({ foo: 1, semanticThreshold: 2, weights: { rule: -1 } });
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.errors.map((e) => e.field).sort()).toEqual(['foo', 'semanticThreshold', 'weights.rule']);
  });

  it('checks the weight sum against the base config', () => {
    const base = mergeIntentConfig(DEFAULT_INTENT_CONFIG, { weights: { llm: 0 } });
    expect(validateIntentConfig({ weights: { rule: 0, semantic: 0 } }, base).ok).toBe(false);
    expect(validateIntentConfig({ weights: { rule: 0, semantic: 0 } }).ok).toBe(true);
  });
});

describe('mergeIntentConfig', () => {
  it('overlays keys and merges weights per key', () => {
    const merged = mergeIntentConfig(DEFAULT_INTENT_CONFIG, { semanticThreshold: 0.8, weights: { llm: 0 } });
    expect(merged.semanticThreshold).toBe(0.8);
    expect(merged.weights).toEqual({ rule: 0.5, semantic: 0.3, llm: 0 });
    expect(merged.clarifyThreshold).toBe(0.4);
  });

  it('ignores undefined values and a null override, and never mutates the defaults', () => {
    expect(mergeIntentConfig(DEFAULT_INTENT_CONFIG, { semanticThreshold: undefined })).toEqual(DEFAULT_INTENT_CONFIG);
    expect(mergeIntentConfig(DEFAULT_INTENT_CONFIG, null)).toEqual(DEFAULT_INTENT_CONFIG);
    const merged = mergeIntentConfig(DEFAULT_INTENT_CONFIG, {});
    merged.weights.rule = 9;
    expect(DEFAULT_INTENT_CONFIG.weights.rule).toBe(0.5);
  });
});
