import { calibrationProblem, type IsotonicCalibration } from './calibration.js';
import type { FusionWeights } from './types.js';

/**
 * How mode-B similarities of a message to an intent's examples become one intent score.
 * `mean` (the seed's), `max`, `topk_mean` (mean of the intent's `semanticExampleK` nearest examples),
 * `centroid_knn` (0.5 · cosine to the TF-IDF centroid of the intent + 0.5 · topk_mean) and
 * `classifier` (a per-tenant softmax logistic regression trained on the examples; served by
 * `centroid_knn` until training finishes).
 */
export const SEMANTIC_AGGREGATIONS = ['mean', 'max', 'topk_mean', 'centroid_knn', 'classifier'] as const;
export type SemanticAggregation = (typeof SEMANTIC_AGGREGATIONS)[number];

export interface IntentConfig {
  weights: FusionWeights;
  semanticThreshold: number;
  conflictThreshold: number;
  grayZoneThreshold: number;
  minTriggerThreshold: number;
  clarifyThreshold: number;
  multiIntentThreshold: number;
  llmJudgeEnabled: boolean;
  semanticMatcherEnabled: boolean;
  semanticMatcherTimeoutMs: number;
  llmJudgeTimeoutMs: number;
  semanticTopK: number;
  semanticAggregation: SemanticAggregation;
  /** k of `topk_mean` and of the kNN half of `centroid_knn`. */
  semanticExampleK: number;
  /**
   * Map of the fused confidence onto a probability of the named intent being right, fitted on the
   * tenant's labelled data (docs/learning.md "Calibration"); null = report the fused confidence.
   * Thresholds always compare the fused (raw) confidence.
   */
  calibration: IsotonicCalibration | null;
}

/** A tenant override: any subset of keys; `weights` may itself be partial. */
export type IntentConfigOverride = Partial<Omit<IntentConfig, 'weights'>> & { weights?: Partial<FusionWeights> };

export const DEFAULT_INTENT_CONFIG: Readonly<IntentConfig> = Object.freeze({
  weights: Object.freeze({ rule: 0.5, semantic: 0.3, llm: 0.2 }),
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
  semanticAggregation: 'classifier',
  semanticExampleK: 3,
  calibration: null,
}) as Readonly<IntentConfig>;

export type ConfigErrorCode = 'unknown_key' | 'invalid_type' | 'out_of_range' | 'weights_sum_not_positive';

export interface ConfigValidationError {
  /** Dotted path of the offending field, e.g. `weights.rule`. */
  field: string;
  code: ConfigErrorCode;
  message: string;
}

export type ConfigValidationResult = { ok: true; value: IntentConfigOverride } | { ok: false; errors: ConfigValidationError[] };

const UNIT_KEYS = ['semanticThreshold', 'conflictThreshold', 'grayZoneThreshold', 'minTriggerThreshold', 'clarifyThreshold', 'multiIntentThreshold'] as const;
const BOOL_KEYS = ['llmJudgeEnabled', 'semanticMatcherEnabled'] as const;
/** Integer keys and their inclusive ranges. */
const INT_KEYS = {
  semanticMatcherTimeoutMs: [1, 60_000],
  llmJudgeTimeoutMs: [1, 120_000],
  semanticTopK: [1, 50],
  semanticExampleK: [1, 50],
} as const;
const WEIGHT_KEYS = ['rule', 'semantic', 'llm'] as const;
const KNOWN_KEYS = new Set<string>(['weights', ...UNIT_KEYS, ...BOOL_KEYS, ...Object.keys(INT_KEYS), 'semanticAggregation', 'calibration']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * Validates a partial tenant override (e.g. the body of `PUT /admin/intent-config`).
 * Thresholds in [0, 1]; weights in [0, 1] with a positive sum once merged onto `base` (`null`: the
 * override alone, its sum checked once the base is known); unknown keys rejected.
 */
export function validateIntentConfig(partial: unknown, base: Readonly<IntentConfig> | null = DEFAULT_INTENT_CONFIG): ConfigValidationResult {
  const errors: ConfigValidationError[] = [];
  const err = (field: string, code: ConfigErrorCode, message: string): void => {
    errors.push({ field, code, message });
  };
  if (!isRecord(partial)) {
    return { ok: false, errors: [{ field: '', code: 'invalid_type', message: 'config must be an object' }] };
  }
  for (const key of Object.keys(partial)) {
    if (!KNOWN_KEYS.has(key)) err(key, 'unknown_key', `unknown config key "${key}"`);
  }
  for (const key of UNIT_KEYS) {
    const v = partial[key];
    if (v === undefined) continue;
    if (!isFiniteNumber(v)) err(key, 'invalid_type', `${key} must be a number`);
    else if (v < 0 || v > 1) err(key, 'out_of_range', `${key} must be within [0, 1], got ${v}`);
  }
  for (const key of BOOL_KEYS) {
    const v = partial[key];
    if (v !== undefined && typeof v !== 'boolean') err(key, 'invalid_type', `${key} must be a boolean`);
  }
  for (const [key, [min, max]] of Object.entries(INT_KEYS)) {
    const v = partial[key];
    if (v === undefined) continue;
    if (!isFiniteNumber(v) || !Number.isInteger(v)) err(key, 'invalid_type', `${key} must be an integer`);
    else if (v < min || v > max) err(key, 'out_of_range', `${key} must be within [${min}, ${max}], got ${v}`);
  }
  const agg = partial.semanticAggregation;
  if (agg !== undefined && !(SEMANTIC_AGGREGATIONS as readonly unknown[]).includes(agg)) {
    err('semanticAggregation', 'invalid_type', `semanticAggregation must be one of ${SEMANTIC_AGGREGATIONS.join(', ')}`);
  }
  if (partial.calibration !== undefined && partial.calibration !== null) {
    const problem = calibrationProblem(partial.calibration);
    if (problem !== null) err('calibration', 'invalid_type', problem);
  }
  const w = partial.weights;
  if (w !== undefined) {
    if (!isRecord(w)) {
      err('weights', 'invalid_type', 'weights must be an object');
    } else {
      let weightsOk = true;
      for (const key of Object.keys(w)) {
        if (!(WEIGHT_KEYS as readonly string[]).includes(key)) {
          err(`weights.${key}`, 'unknown_key', `unknown weight "${key}"`);
          weightsOk = false;
        }
      }
      for (const key of WEIGHT_KEYS) {
        const v = w[key];
        if (v === undefined) continue;
        if (!isFiniteNumber(v)) {
          err(`weights.${key}`, 'invalid_type', `weights.${key} must be a number`);
          weightsOk = false;
        } else if (v < 0 || v > 1) {
          err(`weights.${key}`, 'out_of_range', `weights.${key} must be within [0, 1], got ${v}`);
          weightsOk = false;
        }
      }
      // Without a base (a body checked before the stored config is read) the sum is checked later, on it.
      if (weightsOk && base !== null) {
        const merged = { ...base.weights, ...(w as Partial<FusionWeights>) };
        if (merged.rule + merged.semantic + merged.llm <= 0) {
          err('weights', 'weights_sum_not_positive', 'weights must have a positive sum');
        }
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: partial as IntentConfigOverride };
}

/** Effective config = defaults overlaid with a (validated) tenant override; `weights` merge per key. */
export function mergeIntentConfig(defaults: Readonly<IntentConfig>, override: IntentConfigOverride | null | undefined): IntentConfig {
  const o = override ?? {};
  const defined = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as IntentConfigOverride;
  const weights = Object.fromEntries(Object.entries(o.weights ?? {}).filter(([, v]) => v !== undefined)) as Partial<FusionWeights>;
  return { ...defaults, ...defined, weights: { ...defaults.weights, ...weights } } as IntentConfig;
}
