/**
 * docs/spec/retrieval.md §2–§3: L2 distance → normalized similarity → relevance level + completeness hint.
 * Pure logic: no Nest, no database.
 */

export const RELEVANCE_LEVELS = ['PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE'] as const;
export type RelevanceLevel = (typeof RELEVANCE_LEVELS)[number];

export const COMPLETENESS_HINTS = ['PARTIAL', 'INSUFFICIENT'] as const;
export type CompletenessHint = (typeof COMPLETENESS_HINTS)[number];

/** `retrieval.normalization.*` (kebab-case keys are accepted by the validator as aliases). */
export interface RetrievalNormalizationConfig {
  /** `max-l2-distance`: distances at or beyond it map to similarity 0. Unit vectors: L2 ∈ [0, 2]. */
  maxL2Distance: number;
  /** `highly-relevant-threshold`: top similarity >= it (and no L0 hit) → HIGHLY_RELEVANT. */
  highlyRelevantThreshold: number;
  /** `reference-threshold`: REFERENCE with top similarity >= it → PARTIAL, below → INSUFFICIENT. */
  referenceThreshold: number;
}

export const DEFAULT_RETRIEVAL_NORMALIZATION: Readonly<RetrievalNormalizationConfig> = Object.freeze({
  maxL2Distance: 2.0,
  highlyRelevantThreshold: 0.75,
  referenceThreshold: 0.5,
});

/**
 * `similarity = 1 − min(d, maxL2Distance) / maxL2Distance`, in [0, 1].
 * Negative distances (float noise) clamp to 0 → similarity 1; NaN distance → 0 (worst, never "precise").
 * @throws RangeError when `maxL2Distance` is not a finite number > 0.
 */
export function normalizeSimilarity(distance: number, maxL2Distance: number = DEFAULT_RETRIEVAL_NORMALIZATION.maxL2Distance): number {
  if (!Number.isFinite(maxL2Distance) || maxL2Distance <= 0) {
    throw new RangeError(`maxL2Distance must be a finite number > 0, got ${maxL2Distance}`);
  }
  if (Number.isNaN(distance)) return 0;
  const d = Math.min(Math.max(distance, 0), maxL2Distance);
  return 1 - d / maxL2Distance;
}

export interface RelevanceInput {
  /** Number of L0 (exact title/keyword/domain) hits. */
  l0MatchCount: number;
  /** Normalized similarity of the best L1 (vector) result; null/undefined when L1 returned nothing. */
  l1TopSimilarity: number | null | undefined;
  /** Whether the lookup produced any candidate at all (L0 or L1), before action-memory dedup. */
  hasResults: boolean;
}

export interface RelevanceGrade {
  relevanceLevel: RelevanceLevel;
  completenessHint: CompletenessHint | null;
}

/**
 * docs/spec/retrieval.md, in priority order:
 * 1. `l0MatchCount > 0` → PRECISE, hint null;
 * 2. top similarity >= highlyRelevantThreshold → HIGHLY_RELEVANT, hint null;
 * 3. otherwise REFERENCE, hint PARTIAL when top similarity >= referenceThreshold, else INSUFFICIENT
 *    (also when there is no result at all — the agent's legitimate exit).
 */
export function gradeRelevance(
  input: RelevanceInput,
  thresholds: Pick<RetrievalNormalizationConfig, 'highlyRelevantThreshold' | 'referenceThreshold'> = DEFAULT_RETRIEVAL_NORMALIZATION,
): RelevanceGrade {
  if (input.l0MatchCount > 0) return { relevanceLevel: 'PRECISE', completenessHint: null };
  const top = input.l1TopSimilarity;
  const usable = input.hasResults && typeof top === 'number' && !Number.isNaN(top);
  if (usable && top >= thresholds.highlyRelevantThreshold) return { relevanceLevel: 'HIGHLY_RELEVANT', completenessHint: null };
  if (usable && top >= thresholds.referenceThreshold) return { relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' };
  return { relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT' };
}

/** PRECISE and HIGHLY_RELEVANT are the "strong" levels that make a domain count as retrieved. */
export function isStrongRelevance(level: RelevanceLevel): boolean {
  return level === 'PRECISE' || level === 'HIGHLY_RELEVANT';
}

export interface NormalizationConfigError {
  field: string;
  code: 'unknown_key' | 'invalid_type' | 'out_of_range' | 'inconsistent';
  message: string;
}

export type NormalizationConfigResult = { ok: true; value: RetrievalNormalizationConfig } | { ok: false; errors: NormalizationConfigError[] };

const KEY_ALIASES: Record<string, keyof RetrievalNormalizationConfig> = {
  maxL2Distance: 'maxL2Distance',
  'max-l2-distance': 'maxL2Distance',
  highlyRelevantThreshold: 'highlyRelevantThreshold',
  'highly-relevant-threshold': 'highlyRelevantThreshold',
  referenceThreshold: 'referenceThreshold',
  'reference-threshold': 'referenceThreshold',
};

/**
 * Validates a partial override (camelCase or the seed's kebab-case keys) merged onto `base`:
 * `maxL2Distance` finite and > 0 (at most 1000), thresholds within [0, 1], and
 * `referenceThreshold <= highlyRelevantThreshold`. Unknown keys are rejected. Returns the merged config.
 */
export function validateNormalizationConfig(
  partial: unknown,
  base: Readonly<RetrievalNormalizationConfig> = DEFAULT_RETRIEVAL_NORMALIZATION,
): NormalizationConfigResult {
  if (partial === undefined || partial === null) return { ok: true, value: { ...base } };
  if (typeof partial !== 'object' || Array.isArray(partial)) {
    return { ok: false, errors: [{ field: '', code: 'invalid_type', message: 'normalization config must be an object' }] };
  }
  const errors: NormalizationConfigError[] = [];
  const merged: RetrievalNormalizationConfig = { ...base };
  for (const [rawKey, value] of Object.entries(partial as Record<string, unknown>)) {
    const key = KEY_ALIASES[rawKey];
    if (!key) {
      errors.push({ field: rawKey, code: 'unknown_key', message: `unknown normalization key "${rawKey}"` });
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      errors.push({ field: rawKey, code: 'invalid_type', message: `${rawKey} must be a finite number` });
      continue;
    }
    if (key === 'maxL2Distance' ? value <= 0 || value > 1000 : value < 0 || value > 1) {
      const range = key === 'maxL2Distance' ? '(0, 1000]' : '[0, 1]';
      errors.push({ field: rawKey, code: 'out_of_range', message: `${rawKey} must be within ${range}, got ${value}` });
      continue;
    }
    merged[key] = value;
  }
  if (errors.length === 0 && merged.referenceThreshold > merged.highlyRelevantThreshold) {
    errors.push({
      field: 'referenceThreshold',
      code: 'inconsistent',
      message: `referenceThreshold (${merged.referenceThreshold}) must not exceed highlyRelevantThreshold (${merged.highlyRelevantThreshold})`,
    });
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: merged };
}
