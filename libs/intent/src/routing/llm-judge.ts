import type { IntentConfig } from './config.js';
import { clamp01 } from './sparse.js';
import type { JudgeTriggerReason, RuleMatchResult, SemanticCandidate } from './types.js';

export interface JudgeCandidate {
  intent: string;
  description?: string;
}

export interface JudgeAnswer {
  intent: string;
  confidence: number;
  tokens?: number;
}

/** The LLM behind the judge; the Nest layer plugs a langchain client in. */
export interface IntentJudgeClient {
  judge(message: string, candidates: JudgeCandidate[], timeoutMs: number, signal?: AbortSignal): Promise<JudgeAnswer>;
}

export interface TriggerInput {
  rule: RuleMatchResult | null;
  /** Semantic candidates, best first. */
  semantic: readonly SemanticCandidate[];
  /** Best fused confidence before the judge. */
  bestConfidence: number;
}

/** Gaps are compared with this tolerance so that e.g. 1 - 0.8 counts as exactly 0.2 (not below it). */
const EPS = 1e-9;

/** Every judge trigger of docs/spec/intent-routing.md that holds, in the order conflict, gray_zone, multi_intent. */
export function judgeTriggers(
  input: TriggerInput,
  cfg: Pick<IntentConfig, 'conflictThreshold' | 'grayZoneThreshold' | 'minTriggerThreshold' | 'multiIntentThreshold'>,
): JudgeTriggerReason[] {
  const out: JudgeTriggerReason[] = [];
  const top = input.semantic[0];
  if (input.rule !== null && top !== undefined && top.intent !== input.rule.intent && Math.abs(input.rule.score - top.score) < cfg.conflictThreshold - EPS) {
    out.push('conflict');
  }
  if (cfg.minTriggerThreshold < input.bestConfidence && input.bestConfidence < cfg.grayZoneThreshold) out.push('gray_zone');
  if (isMultiIntent(input.semantic, cfg.multiIntentThreshold)) out.push('multi_intent');
  return out;
}

/** Semantic top-2 gap below `threshold`. */
export function isMultiIntent(semantic: readonly SemanticCandidate[], threshold: number): boolean {
  return semantic.length >= 2 && semantic[0].score - semantic[1].score < threshold - EPS;
}

export type JudgeOutcome =
  { ok: true; intent: string; confidence: number; tokens?: number; durationMs: number } | { ok: false; error: string; durationMs: number };

/**
 * Calls the judge with a hard timeout (the promise settles by `timeoutMs` even if the client ignores
 * its signal). An answer naming an intent outside `candidates` counts as a failure.
 */
export async function runJudge(client: IntentJudgeClient, message: string, candidates: JudgeCandidate[], timeoutMs: number): Promise<JudgeOutcome> {
  const start = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timeout after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const answer = await Promise.race([client.judge(message, candidates, timeoutMs, controller.signal), timeout]);
    const durationMs = performance.now() - start;
    if (!candidates.some((c) => c.intent === answer.intent)) {
      return { ok: false, error: `judge answered unknown intent ${JSON.stringify(answer.intent)}`, durationMs };
    }
    if (typeof answer.confidence !== 'number' || !Number.isFinite(answer.confidence)) {
      return { ok: false, error: 'judge answered without a numeric confidence', durationMs };
    }
    return {
      ok: true,
      intent: answer.intent,
      confidence: clamp01(answer.confidence),
      ...(answer.tokens !== undefined ? { tokens: answer.tokens } : {}),
      durationMs,
    };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e), durationMs: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
}
