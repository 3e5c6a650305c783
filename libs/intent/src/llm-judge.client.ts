import { Logger } from '@nestjs/common';
import type { LlmService } from '@arbiter/llm';
import type { IntentJudgeClient, JudgeAnswer, JudgeCandidate } from './routing/index.js';

const SYSTEM_PROMPT = [
  'You arbitrate intent routing for a customer-support assistant.',
  'Pick the ONE candidate intent that best matches the user message.',
  'Answer with JSON only, no prose: {"intent": "<a candidate intent, verbatim>", "confidence": <number between 0 and 1>}.',
].join(' ');

/** Extracts `{intent, confidence}` from the judge's reply (tolerates code fences and prose around the JSON). */
export function parseJudgeReply(content: string): { intent: string; confidence: number } {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('judge reply holds no JSON object');
  const parsed: unknown = JSON.parse(content.slice(start, end + 1));
  if (typeof parsed !== 'object' || parsed === null) throw new Error('judge reply is not a JSON object');
  const { intent, confidence } = parsed as { intent?: unknown; confidence?: unknown };
  if (typeof intent !== 'string' || intent.trim() === '') throw new Error('judge reply has no intent');
  const c = typeof confidence === 'string' ? Number(confidence) : confidence;
  if (typeof c !== 'number' || !Number.isFinite(c)) throw new Error('judge reply has no numeric confidence');
  // Some models answer in percent.
  return { intent: intent.trim(), confidence: c > 1 && c <= 100 ? c / 100 : c };
}

/** The routing core's judge client on the configured langchain LLM (`LlmService`), for one tenant. */
export class LlmJudgeClient implements IntentJudgeClient {
  private readonly logger = new Logger('IntentJudge');

  constructor(
    private readonly llm: LlmService,
    private readonly tenantId: string,
  ) {}

  async judge(message: string, candidates: JudgeCandidate[], timeoutMs: number, signal?: AbortSignal): Promise<JudgeAnswer> {
    const list = candidates.map((c) => ({ intent: c.intent, ...(c.description !== undefined ? { description: c.description } : {}) }));
    try {
      const reply = await this.llm.invoke(
        [
          ['system', SYSTEM_PROMPT],
          ['human', `Candidates:\n${JSON.stringify(list, null, 1)}\n\nUser message:\n${message}`],
        ],
        { timeoutMs, ...(signal !== undefined ? { signal } : {}), purpose: 'intent_judge' },
      );
      const answer = parseJudgeReply(reply.content);
      return { ...answer, ...(reply.usage !== null ? { tokens: reply.usage.totalTokens } : {}) };
    } catch (error) {
      // Tenant id for audit (AC-AISVC-124); the router falls back to the semantic result.
      this.logger.warn({ msg: 'intent judge failed', tenantId: this.tenantId, err: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }
}
