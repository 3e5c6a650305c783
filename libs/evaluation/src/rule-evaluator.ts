/**
 * Rule track of the self-evaluation (docs/spec/evaluation.md §1), pure: base 60; +5 per tool call, at
 * most +20; +10 when stepCount <= 3; status FAILED → 0. The reasoning names every rule applied and
 * why the LLM track was not used.
 */
export const RULE_BASE = 60;
export const RULE_PER_TOOL_CALL = 5;
export const RULE_TOOL_CALL_CAP = 20;
export const RULE_FEW_STEPS_BONUS = 10;
export const RULE_FEW_STEPS_MAX = 3;

/** Why a session got the rule result instead of an LLM one. */
export type FallbackReason = 'llm_disabled' | 'llm_timeout' | 'llm_invalid_output' | 'llm_error' | 'no_answer' | 'llm_pending' | 'run_failed';

/** Fallbacks caused by a failing LLM call: the retry job re-runs these once the LLM answers. */
export const RETRYABLE_FALLBACK_REASONS: readonly FallbackReason[] = ['llm_timeout', 'llm_invalid_output', 'llm_error'];

export interface RuleInput {
  /** FAILED scores 0; every other finished status is scored by the rules. */
  failed: boolean;
  stepCount: number;
  toolCallCount: number;
}

export interface RuleResult {
  confidence: number;
  reasoning: string;
}

export function describeFallback(reason: FallbackReason, detail?: string): string {
  const suffix = detail ? ` (${detail})` : '';
  switch (reason) {
    case 'llm_disabled':
      return 'no LLM is configured (LLM_PROVIDER=none)';
    case 'llm_timeout':
      return `the LLM did not answer in time${suffix}`;
    case 'llm_invalid_output':
      return `the LLM reply was not valid {"confidence": 0-100, "reasoning": "..."} JSON${suffix}`;
    case 'llm_error':
      return `the LLM call failed${suffix}`;
    case 'no_answer':
      return 'the run produced no answer for an LLM to assess';
    case 'llm_pending':
      return `the LLM evaluation has not completed yet${suffix}`;
    case 'run_failed':
      return 'the run failed (docs/spec/evaluation.md §1: a FAILED run scores 0; only successful runs are assessed)';
  }
}

export function ruleEvaluation(input: RuleInput, reason: FallbackReason, detail?: string): RuleResult {
  const why = `LLM track not used: ${describeFallback(reason, detail)}.`;
  if (input.failed) {
    return { confidence: 0, reasoning: `Rule-based score 0: status FAILED → 0 (tool-call and step rules not applied). ${why}` };
  }
  const toolCalls = Math.max(0, Math.floor(input.toolCallCount));
  const steps = Math.max(0, Math.floor(input.stepCount));
  const toolBonus = Math.min(toolCalls * RULE_PER_TOOL_CALL, RULE_TOOL_CALL_CAP);
  const stepBonus = steps <= RULE_FEW_STEPS_MAX ? RULE_FEW_STEPS_BONUS : 0;
  const confidence = RULE_BASE + toolBonus + stepBonus;
  const parts = [`base ${RULE_BASE}`];
  parts.push(
    toolCalls === 0
      ? 'no tool calls → +0'
      : `${toolCalls} tool call${toolCalls === 1 ? '' : 's'} × +${RULE_PER_TOOL_CALL} → +${toolBonus}${toolCalls * RULE_PER_TOOL_CALL > RULE_TOOL_CALL_CAP ? ` (capped at +${RULE_TOOL_CALL_CAP})` : ''}`,
  );
  parts.push(
    steps <= RULE_FEW_STEPS_MAX
      ? `${steps} step${steps === 1 ? '' : 's'} <= ${RULE_FEW_STEPS_MAX} → +${RULE_FEW_STEPS_BONUS}`
      : `${steps} steps > ${RULE_FEW_STEPS_MAX} → +0`,
  );
  return { confidence, reasoning: `Rule-based score ${confidence}: ${parts.join('; ')}. ${why}` };
}
