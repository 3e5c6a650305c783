import { assertNever } from '@arbiter/common';
import { CoverageErrorCode, CoverageException } from '../coverage.exception.js';
import type {
  CoverageDecision,
  CoverageEvaluator,
  CoverageInput,
  CoverageMediaInput,
  CoverageReasonCode,
  CoverageReferenceInput,
  CoverageVerdict,
} from './coverage.types.js';

/**
 * Explicit "no answer" phrases the assistant uses when the knowledge base has nothing (docs/spec/coverage.md
 * `noAnswerPhrases`). Matched as case-insensitive substrings of the trimmed answer.
 */
export const NO_ANSWER_PHRASES: readonly string[] = ['未找到', '没有找到', '无法确定', '暂无相关', '暂无已发布的权威知识', '知识库中没有', '产品不存在于资料中'];

/**
 * Retrieval-gap phrases (seed `retrievalGapPhrases`): a no-answer signal only together with a
 * human-escalation phrase, so a valid negative result such as "未查询到异常记录" is not a miss.
 */
export const RETRIEVAL_GAP_PHRASES: readonly string[] = ['未查询到', '未检索到', '未能查询到', '未能检索到'];

/** Human-escalation phrases (seed `humanEscalationPhrases`). */
export const HUMAN_ESCALATION_PHRASES: readonly string[] = ['建议您联系', '建议联系', '请联系', '联系技术支持', '联系官方销售'];

/** Statuses the seed calls "succeeded" (docs/spec/coverage.md: BAD_CASE is a succeeded session with bad feedback). */
const SUCCEEDED_STATUSES: ReadonlySet<string> = new Set(['SUCCESS', 'BAD_CASE']);

const lower = (phrases: readonly string[]): readonly string[] => phrases.map((p) => p.toLowerCase());
const NO_ANSWER = lower(NO_ANSWER_PHRASES);
const RETRIEVAL_GAP = lower(RETRIEVAL_GAP_PHRASES);
const ESCALATION = lower(HUMAN_ESCALATION_PHRASES);

function containsAny(value: string, phrases: readonly string[]): boolean {
  return phrases.some((p) => value.includes(p));
}

/** Seed `isNoAnswer`: an explicit no-answer phrase, or a retrieval gap plus a human escalation. */
export function isExplicitNoAnswer(answer: string | null | undefined): boolean {
  const value = (answer ?? '').trim().toLowerCase();
  if (value === '') return false;
  return containsAny(value, NO_ANSWER) || (containsAny(value, RETRIEVAL_GAP) && containsAny(value, ESCALATION));
}

/** Seed `hasImageMedia`: some media item whose type, trimmed and case-folded, is "image". */
export function hasImageMedia(media: readonly CoverageMediaInput[] | null | undefined): boolean {
  return (media ?? []).some((m) => typeof m?.type === 'string' && m.type.trim().toLowerCase() === 'image');
}

/**
 * Seed `maxScore`: the highest reference score, starting from 0 (so 0 with no references and never
 * negative). A score that is not a finite number is malformed stored data: reported with a typed
 * error naming the reference, never silently read as 0.
 */
export function maxReferenceScore(sessionId: string, references: readonly CoverageReferenceInput[]): number {
  let max = 0;
  references.forEach((ref, index) => {
    const score: unknown = ref?.score;
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new CoverageException(CoverageErrorCode.MalformedReference, `session ${sessionId}, references[${index}].score = ${describe(score)}`, {
        sessionId,
        referenceIndex: index,
      });
    }
    if (score > max) max = score;
  });
  return max;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  try {
    return JSON.stringify(value).slice(0, 80);
  } catch {
    return typeof value;
  }
}

/** The verdict a reason code implies. */
export function verdictOf(reason: CoverageReasonCode): CoverageVerdict {
  switch (reason) {
    case 'covered_has_references':
    case 'covered_visual_recognition':
    case 'covered_non_knowledge_response':
      return 'covered';
    case 'uncovered_explicit_no_answer':
    case 'uncovered_no_references':
      return 'uncovered';
    default:
      return assertNever(reason, 'coverage reason code');
  }
}

/**
 * Coverage evaluator v1: exactly the rules of docs/spec/coverage.md, in priority order —
 * 0. not SUCCESS/BAD_CASE → SESSION_NOT_SUCCEEDED (409);
 * 1. explicit no-answer (phrase, or retrieval gap + escalation) → uncovered_explicit_no_answer;
 * 2. image media: references → covered_has_references; none + searched → uncovered_no_references;
 *    none + not searched → covered_visual_recognition;
 * 3. text without references: searched → uncovered_no_references; else covered_non_knowledge_response;
 * 4. references → covered_has_references.
 * Never a score threshold; `topScore` is informational.
 */
export class CoverageEvaluatorV1 implements CoverageEvaluator {
  static readonly VERSION = 'v1';
  readonly version = CoverageEvaluatorV1.VERSION;

  evaluate(input: CoverageInput): CoverageDecision {
    if (!SUCCEEDED_STATUSES.has(input.status)) {
      throw new CoverageException(CoverageErrorCode.SessionNotSucceeded, `session ${input.sessionId} has status ${input.status}`, {
        sessionId: input.sessionId,
        status: input.status,
      });
    }
    const references = input.references ?? [];
    // Validated for every session, whatever rule fires: malformed data is reported, not hidden.
    const topScore = maxReferenceScore(input.sessionId, references);
    const referenceCount = references.length;
    const reasonCode = this.classify(input, referenceCount);
    // Built field by field (no spreads): this runs once per session in million-row backfills.
    return {
      sessionId: input.sessionId,
      tenantId: input.tenantId,
      channel: input.channel,
      evaluatorVersion: this.version,
      verdict: verdictOf(reasonCode),
      reasonCode,
      referenceCount,
      topScore,
    };
  }

  private classify(input: CoverageInput, referenceCount: number): CoverageReasonCode {
    // Same order as the seed: image turns first, then text turns; both are covered with references.
    if (isExplicitNoAnswer(input.answer)) return 'uncovered_explicit_no_answer';
    if (hasImageMedia(input.media)) {
      if (referenceCount > 0) return 'covered_has_references';
      return input.knowledgeSearched ? 'uncovered_no_references' : 'covered_visual_recognition';
    }
    if (referenceCount === 0) {
      return input.knowledgeSearched ? 'uncovered_no_references' : 'covered_non_knowledge_response';
    }
    return 'covered_has_references';
  }
}
