import { CoverageErrorCode, CoverageException } from './coverage.exception.js';
import { normalizeGapText } from './gap-text.js';
import type { CandidateSession } from './coverage-backfill.repository.js';
import type { DecisionRow } from './coverage.repository.js';
import type { CoverageEvaluator, CoverageMediaInput, CoverageReferenceInput } from './evaluator/coverage.types.js';

/** A session whose stored data the evaluator refused (reported, never fatal to a batch). */
export interface RejectedSession {
  sessionId: string;
  code: string;
  message: string;
}

export type DecideOutcome = { ok: true; row: DecisionRow } | { ok: false; rejected: RejectedSession };

/**
 * Evaluates one stored session and builds its decision row (pure). Typed evaluator refusals —
 * not succeeded, malformed references (including a stored `references` that is not a list) — come
 * back as `rejected` so a batch can report them and go on; anything else is a bug and is thrown.
 * A stored `media` that is not a list counts as no media.
 */
export function decideStoredSession(evaluator: CoverageEvaluator, tenantId: string, session: CandidateSession): DecideOutcome {
  try {
    const references = asList<CoverageReferenceInput>(session.references, 'references', session.id);
    const media = asList<CoverageMediaInput>(session.media, 'media', session.id);
    const decision = evaluator.evaluate({
      sessionId: session.id,
      tenantId,
      channel: session.channel,
      // A failed run marked not useful is BAD_CASE but not a succeeded turn (docs/spec/coverage.md): judged as FAILED.
      status: session.outcome === 'FAILED' ? 'FAILED' : session.status,
      answer: session.answer,
      references,
      media,
      knowledgeSearched: session.knowledgeSearched === true,
    });
    const row: DecisionRow = {
      sessionId: decision.sessionId,
      tenantId: decision.tenantId,
      channel: decision.channel,
      evaluatorVersion: decision.evaluatorVersion,
      verdict: decision.verdict,
      reasonCode: decision.reasonCode,
      referenceCount: decision.referenceCount,
      topScore: decision.topScore,
      gapKey: normalizeGapText(session.query),
      sessionCreatedAt: session.createdAt,
    };
    return { ok: true, row };
  } catch (error) {
    if (error instanceof CoverageException) return { ok: false, rejected: { sessionId: session.id, code: error.code, message: error.message } };
    throw error;
  }
}

function asList<T>(value: unknown, field: 'references' | 'media', sessionId: string): readonly T[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value as T[];
  // Only references carry data the decision depends on; a non-list there is malformed stored data.
  if (field === 'references') throw new CoverageException(CoverageErrorCode.MalformedReference, `session ${sessionId}, references is not a list`, { sessionId });
  return [];
}
