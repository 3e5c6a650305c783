export const SESSION_STATUSES = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'BAD_CASE'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Statuses of a session whose agent run produced an answer (coverage and feedback accept these). */
export const SUCCEEDED_STATUSES: readonly SessionStatus[] = ['SUCCESS', 'BAD_CASE'];
export const FINISHED_STATUSES: readonly SessionStatus[] = ['SUCCESS', 'FAILED', 'BAD_CASE'];

/**
 * What the agent run itself did (`diagnosis_session.outcome`), set when it finishes and never changed
 * by feedback: a FAILED run marked not useful becomes status BAD_CASE but stays outcome FAILED.
 */
export const RUN_OUTCOMES = ['SUCCESS', 'FAILED'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** The fields that tell how a run ended (`outcome` is null for unfinished runs and rows written before it existed). */
export interface RunState {
  status: SessionStatus;
  outcome: RunOutcome | null;
}

/** The run failed (docs/spec/evaluation.md §1: self-evaluation 0, no LLM assessment), whatever feedback made of its status. */
export function runFailed(s: RunState): boolean {
  return s.status === 'FAILED' || s.outcome === 'FAILED';
}

/** The run produced an answer (SUCCESS, or BAD_CASE of a successful run): the only runs coverage evaluates (docs/spec/coverage.md). SQL twin: `runSucceededSql`. */
export function runSucceeded(s: RunState): boolean {
  return (s.status === 'SUCCESS' || s.status === 'BAD_CASE') && s.outcome !== 'FAILED';
}

export const FEEDBACK_VALUES = ['useful', 'not_useful'] as const;
export type FeedbackValue = (typeof FEEDBACK_VALUES)[number];

export const MEDIA_TYPES = ['image', 'audio', 'video', 'file'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/**
 * A media type as the coverage rules read it (docs/spec/coverage.md `hasImageMedia`: trimmed, case-folded), so
 * `" IMAGE "` is accepted at ingest and stored as `image`. Non-strings pass through (validation
 * rejects them, like any type outside MEDIA_TYPES).
 */
export function normalizeMediaType(value: unknown): unknown {
  return typeof value === 'string' ? value.trim().toLowerCase() : value;
}

export interface SessionReference {
  documentId?: string;
  filePath?: string;
  title?: string;
  score: number;
  /** For a section of an uploaded file (docs/retrieval.md "Sections of files"): the file's name, pages and heading path. */
  fileName?: string | null;
  page?: number | null;
  pageEnd?: number | null;
  section?: string[] | null;
}

export interface SessionMedia {
  type: MediaType;
  url?: string;
}

export interface SelfEvaluation {
  confidence: number;
  reasoning: string;
  source: 'llm' | 'rule';
  evaluatedAt: string;
  model?: string;
}
