export const SESSION_STATUSES = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'BAD_CASE'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Statuses of a session whose agent run produced an answer (coverage and feedback accept these). */
export const SUCCEEDED_STATUSES: readonly SessionStatus[] = ['SUCCESS', 'BAD_CASE'];
export const FINISHED_STATUSES: readonly SessionStatus[] = ['SUCCESS', 'FAILED', 'BAD_CASE'];

export const FEEDBACK_VALUES = ['useful', 'not_useful'] as const;
export type FeedbackValue = (typeof FEEDBACK_VALUES)[number];

export const MEDIA_TYPES = ['image', 'audio', 'video', 'file'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/**
 * A media type as the coverage rules read it (seed 001 `hasImageMedia`: trimmed, case-folded), so
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
