/** Pure types of the coverage evaluator (docs/spec/coverage.md). No Nest, no database. */

export type CoverageVerdict = 'covered' | 'uncovered';

export const COVERAGE_VERDICTS: readonly CoverageVerdict[] = ['covered', 'uncovered'];

export type CoverageReasonCode =
  | 'covered_has_references'
  | 'covered_visual_recognition'
  | 'covered_non_knowledge_response'
  | 'uncovered_explicit_no_answer'
  | 'uncovered_no_references';

export const COVERAGE_REASON_CODES: readonly CoverageReasonCode[] = [
  'covered_has_references',
  'covered_visual_recognition',
  'covered_non_knowledge_response',
  'uncovered_explicit_no_answer',
  'uncovered_no_references',
];

/** Session statuses (docs/spec/contract.md §2). Only SUCCESS and BAD_CASE are "succeeded". */
export type CoverageSessionStatus = 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'BAD_CASE';

/**
 * A reference as stored on the session. `score` is `unknown` on purpose: references come from jsonb
 * (ingest, imports, legacy rows) and the evaluator validates it rather than trusting the type.
 */
export interface CoverageReferenceInput {
  readonly score?: unknown;
}

/** A media item as stored on the session; only `type` matters for coverage. */
export interface CoverageMediaInput {
  readonly type?: unknown;
}

/** What an evaluator needs from one finished session (the seed's `core.Turn`). */
export interface CoverageInput {
  readonly sessionId: string;
  readonly tenantId: string;
  readonly channel: string;
  /** A `CoverageSessionStatus`; typed as string so database rows pass as is — anything else is rejected. */
  readonly status: string;
  readonly answer: string | null | undefined;
  readonly references: readonly CoverageReferenceInput[] | null | undefined;
  readonly media: readonly CoverageMediaInput[] | null | undefined;
  readonly knowledgeSearched: boolean;
}

/** One coverage decision (the seed's `Decision`); unique per (sessionId, evaluatorVersion). */
export interface CoverageDecision {
  readonly sessionId: string;
  readonly tenantId: string;
  readonly channel: string;
  readonly evaluatorVersion: string;
  readonly verdict: CoverageVerdict;
  readonly reasonCode: CoverageReasonCode;
  readonly referenceCount: number;
  /** Highest reference score (0 with none, never below 0 — the seed's maxScore starts at 0). Not a threshold. */
  readonly topScore: number;
}

/** A versioned coverage evaluator. Adding `v2` = one new class implementing this. */
export interface CoverageEvaluator {
  readonly version: string;
  /**
   * @throws CoverageException SESSION_NOT_SUCCEEDED when the session did not succeed
   * @throws CoverageException MALFORMED_REFERENCE when a reference score is not a finite number
   */
  evaluate(input: CoverageInput): CoverageDecision;
}
