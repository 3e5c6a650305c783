import { confidenceEvent } from '@arbiter/retrieval';
/**
 * docs/spec/evaluation.md §3: how the chat answers given a knowledge lookup's quality signals. Pure logic.
 *
 * - `completenessHint: INSUFFICIENT` (or no result at all) → always the legitimate exit (+ transfer);
 * - PRECISE / HIGHLY_RELEVANT → always answered, without a caveat (brief §4.3 as of 2026-12-01: a caveat
 *   on an exact hit contradicts the grade); a medium or low count-driven score is only recorded, as the
 *   reason `strong_relevance_low_score`, and stays in `retrievalConfidence`;
 * - otherwise (REFERENCE / PARTIAL) by the confidence level: high → answer, medium → answer with a
 *   caveat, low → legitimate exit + `shouldTransfer`;
 * - a lookup whose documents were all given earlier in the conversation (`dedupReason` with no
 *   result), or whose strong documents were and only weak neighbours are left → point back to the
 *   earlier answer (not a miss of the knowledge base, not an exit, and no padding quoted as an answer).
 */
export type PolicyLevel = 'PRECISE' | 'HIGHLY_RELEVANT' | 'REFERENCE';
export type PolicyConfidenceLevel = 'high' | 'medium' | 'low';
export type ChatConfidenceEvent = 'high-confidence' | 'medium-confidence' | 'low-confidence' | 'fallback-triggered';

export interface PolicyInput {
  relevanceLevel: PolicyLevel;
  completenessHint: 'PARTIAL' | 'INSUFFICIENT' | null;
  confidenceLevel: PolicyConfidenceLevel;
  resultCount: number;
  dedupReason: string | null;
  /**
   * Whether a returned document carries the lookup's strong level (an exact L0 hit for PRECISE, a
   * result at the threshold for HIGHLY_RELEVANT). False when the action memory withheld those and only
   * weaker neighbours came back: the strong documents were already given in this conversation.
   * Default true.
   */
  strongResultReturned?: boolean;
}

export type PolicyAction = 'answer' | 'answer_with_caveat' | 'legitimate_exit' | 'already_provided';

export type PolicyReason =
  | 'insufficient_hint'
  | 'no_results'
  | 'strong_relevance'
  | 'strong_relevance_low_score'
  | 'high_confidence'
  | 'medium_confidence'
  | 'low_confidence'
  | 'deduplicated'
  | 'strong_results_already_given';

export interface PolicyDecision {
  action: PolicyAction;
  reason: PolicyReason;
  shouldTransfer: boolean;
}

/** The retrieval lib's level → event mapping (chat adds only `fallback-triggered`). */
export function confidenceEventOf(level: PolicyConfidenceLevel): ChatConfidenceEvent {
  return confidenceEvent(level);
}

export function decideAnswerPolicy(input: PolicyInput): PolicyDecision {
  if (input.resultCount === 0 && input.dedupReason) return { action: 'already_provided', reason: 'deduplicated', shouldTransfer: false };
  if (input.completenessHint === 'INSUFFICIENT') return { action: 'legitimate_exit', reason: 'insufficient_hint', shouldTransfer: true };
  if (input.resultCount === 0) return { action: 'legitimate_exit', reason: 'no_results', shouldTransfer: true };
  const strong = input.relevanceLevel === 'PRECISE' || input.relevanceLevel === 'HIGHLY_RELEVANT';
  if (strong && input.strongResultReturned === false) return { action: 'already_provided', reason: 'strong_results_already_given', shouldTransfer: false };
  if (strong) {
    return { action: 'answer', reason: input.confidenceLevel === 'high' ? 'strong_relevance' : 'strong_relevance_low_score', shouldTransfer: false };
  }
  switch (input.confidenceLevel) {
    case 'high':
      return { action: 'answer', reason: 'high_confidence', shouldTransfer: false };
    case 'medium':
      return { action: 'answer_with_caveat', reason: 'medium_confidence', shouldTransfer: false };
    case 'low':
      return { action: 'legitimate_exit', reason: 'low_confidence', shouldTransfer: true };
  }
}
