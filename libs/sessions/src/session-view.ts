import type { DiagnosisSessionEntity } from './entities/diagnosis-session.entity.js';
import type { FeedbackValue, RunOutcome, SelfEvaluation, SessionMedia, SessionReference, SessionStatus } from './session.types.js';

/** The current-version coverage decision, supplied by the coverage module through a view enricher. */
export interface SessionCoverageSummary {
  verdict: 'covered' | 'uncovered';
  reasonCode: string;
  evaluatorVersion: string;
  referenceCount: number;
  topScore: number;
}

export interface SessionView {
  id: string;
  conversationId: string;
  channel: string;
  query: string;
  answer: string | null;
  status: SessionStatus;
  outcome: RunOutcome | null;
  intent: string | null;
  stepCount: number;
  toolCallCount: number;
  references: SessionReference[];
  media: SessionMedia[];
  knowledgeSearched: boolean;
  selfEvaluation: SelfEvaluation | null;
  feedback: FeedbackValue | null;
  coverage: SessionCoverageSummary | null;
  latencyMs: number | null;
  createdAt: string;
  updatedAt: string;
}

/** Fields other modules add to the view. */
export type SessionViewExtras = Pick<SessionView, 'coverage'>;

export function toSessionView(s: DiagnosisSessionEntity, extras?: Partial<SessionViewExtras>): SessionView {
  return {
    id: s.id,
    conversationId: s.conversationId,
    channel: s.channel,
    query: s.query,
    answer: s.answer,
    status: s.status,
    outcome: s.outcome,
    intent: s.intent,
    stepCount: s.stepCount,
    toolCallCount: s.toolCallCount,
    references: s.references,
    media: s.media,
    knowledgeSearched: s.knowledgeSearched,
    selfEvaluation: s.selfEvaluation,
    feedback: s.feedback,
    coverage: extras?.coverage ?? null,
    latencyMs: s.latencyMs,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
