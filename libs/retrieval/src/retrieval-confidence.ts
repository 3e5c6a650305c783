/**
 * Retrieval confidence from result quality (docs/spec/evaluation.md §2).
 * Pure logic: no Nest, no database. Usable by the chat pipeline as well as by lookups.
 *
 * score = countScore + qualityScore + scenarioScore, where
 * - countScore    = min(n / 5, 1) · 0.4
 * - qualityScore  = mean(relevance) · 0.4                   (0 when n = 0)
 * - scenarioScore = 0.2 by profile: `impact` if some result has matches > 1,
 *                   `search` if the top (first) result's relevance > 0.9, `dependency` if n > 0;
 *                   every other profile scores 0.
 * Level: score >= high → 'high', >= medium → 'medium', else 'low', with per-profile thresholds
 * (the brief's deliberate change: the seed's function used a fixed 0.6 / 0.3).
 */

export const CONFIDENCE_PROFILES = ['impact', 'dependency', 'search', 'documentation', 'complexity', 'overview', 'refactor', 'reference'] as const;
/** The seed's `IntentType`, carried by intent rules as `confidenceProfile`. */
export type ConfidenceProfile = (typeof CONFIDENCE_PROFILES)[number];

/** Profile used when the caller has no intent (the intent rules' default `confidenceProfile`). */
export const DEFAULT_CONFIDENCE_PROFILE: ConfidenceProfile = 'search';

export type ConfidenceLevel = 'high' | 'medium' | 'low';
export type ConfidenceEvent = 'high-confidence' | 'medium-confidence' | 'low-confidence';

export interface ConfidenceThresholds {
  high: number;
  medium: number;
}

export const CONFIDENCE_THRESHOLDS: Readonly<Record<ConfidenceProfile, Readonly<ConfidenceThresholds>>> = Object.freeze({
  impact: { high: 0.7, medium: 0.4 },
  dependency: { high: 0.7, medium: 0.4 },
  search: { high: 0.5, medium: 0.25 },
  documentation: { high: 0.5, medium: 0.25 },
  complexity: { high: 0.6, medium: 0.3 },
  overview: { high: 0.6, medium: 0.3 },
  refactor: { high: 0.6, medium: 0.3 },
  reference: { high: 0.5, medium: 0.25 },
});

/** Thresholds of a profile that is missing or not one of the seed's IntentTypes. */
export const UNKNOWN_PROFILE_THRESHOLDS: Readonly<ConfidenceThresholds> = Object.freeze({ high: 0.6, medium: 0.3 });

/**
 * One result as the seed's `SearchResult`: relevance is read as `relevance ?? toolScore ?? score ?? 0`
 * (the seed's `getRelevance`); for lookups `relevance` is the normalized similarity in [0, 1].
 */
export interface ConfidenceResultInput {
  relevance?: number;
  toolScore?: number;
  score?: number;
  /** Match count (`getMatchCount`: missing → 0). */
  matches?: number;
}

export interface RetrievalConfidence {
  /** countScore + qualityScore + scenarioScore, in [0, 1]. */
  score: number;
  level: ConfidenceLevel;
  /** The seed's reason strings, in the seed's order. */
  reasons: string[];
  event: ConfidenceEvent;
  /** The profile the thresholds came from (`null` when unknown/missing → 0.6 / 0.3). */
  profile: ConfidenceProfile | null;
  components: { countScore: number; qualityScore: number; scenarioScore: number };
}

export function isConfidenceProfile(value: unknown): value is ConfidenceProfile {
  return typeof value === 'string' && (CONFIDENCE_PROFILES as readonly string[]).includes(value);
}

export function confidenceThresholds(profile: string | null | undefined): Readonly<ConfidenceThresholds> {
  return isConfidenceProfile(profile) ? CONFIDENCE_THRESHOLDS[profile] : UNKNOWN_PROFILE_THRESHOLDS;
}

/** The seed's `getRelevance`: UnifiedResult fields first, then SearchResult's `score`; non-numbers → 0. */
export function getRelevance(result: ConfidenceResultInput): number {
  if (result.relevance !== undefined) return finiteOrZero(result.relevance);
  if (result.toolScore !== undefined) return finiteOrZero(result.toolScore);
  return finiteOrZero(result.score ?? 0);
}

function finiteOrZero(n: number): number {
  return Number.isFinite(n) ? n : 0;
}

/** Removes float noise (0.30000000000000004) so the exact threshold boundaries hold. */
function tidy(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

export function confidenceEvent(level: ConfidenceLevel): ConfidenceEvent {
  switch (level) {
    case 'high':
      return 'high-confidence';
    case 'medium':
      return 'medium-confidence';
    case 'low':
      return 'low-confidence';
  }
}

/**
 * The retrieval confidence (docs/spec/evaluation.md §2) with per-profile thresholds. `results` must be ordered best first:
 * as specified there, "top relevance" is the first result's. Reasons:
 * - `无搜索结果` when n = 0; `找到 N 个相关结果` when n >= 3;
 * - `最高相关度 P%` when the top relevance > 0.8 (P = round(top·100));
 * - `发现多处引用` when the `impact` scenario scored.
 */
export function calculateRetrievalConfidence(results: readonly ConfidenceResultInput[], profile: string | null | undefined): RetrievalConfidence {
  const reasons: string[] = [];
  const n = results.length;

  const countScore = Math.min(n / 5, 1) * 0.4;
  if (n === 0) reasons.push('无搜索结果');
  else if (n >= 3) reasons.push(`找到 ${n} 个相关结果`);

  const relevances = results.map(getRelevance);
  const qualityScore = n > 0 ? (relevances.reduce((sum, r) => sum + r, 0) / n) * 0.4 : 0;
  const topRelevance = n > 0 ? relevances[0] : 0;
  if (n > 0 && topRelevance > 0.8) reasons.push(`最高相关度 ${(topRelevance * 100).toFixed(0)}%`);

  const known = isConfidenceProfile(profile) ? profile : null;
  let scenarioScore = 0;
  if (known !== null) {
    switch (known) {
      case 'impact':
        scenarioScore = results.some((r) => (r.matches ?? 0) > 1) ? 0.2 : 0;
        if (scenarioScore > 0) reasons.push('发现多处引用');
        break;
      case 'search':
        scenarioScore = topRelevance > 0.9 ? 0.2 : 0;
        break;
      case 'dependency':
        scenarioScore = n > 0 ? 0.2 : 0;
        break;
      case 'documentation':
      case 'complexity':
      case 'overview':
      case 'refactor':
      case 'reference':
        scenarioScore = 0;
        break;
    }
  }

  const score = tidy(countScore + qualityScore + scenarioScore);
  const thresholds = confidenceThresholds(known);
  const level: ConfidenceLevel = score >= thresholds.high ? 'high' : score >= thresholds.medium ? 'medium' : 'low';
  return {
    score,
    level,
    reasons,
    event: confidenceEvent(level),
    profile: known,
    components: { countScore: tidy(countScore), qualityScore: tidy(qualityScore), scenarioScore },
  };
}
