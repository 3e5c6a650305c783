/**
 * What a turn stores about two-stage clarification (`route_trace.chat.clarify`, docs/chat-clients.md
 * "Clarification"), and the reading of a stored one back. Pure: no Nest, no database.
 */
import type { ClarifyOption } from './chat-texts.js';

/** How an answer picked an offered intent: pickClarification's ways, or the router decided one of them. */
export type ClarifyResolvedBy = 'number' | 'label' | 'paraphrase' | 'routing';

export type ClarifyTrace =
  /** This turn asked: the question it could not route, and the intents it offered, in their listed order. */
  | { stage: 'asked'; question: string; offered: ClarifyOption[] }
  /** This turn answered the previous turn's clarifying question with one of its intents. */
  | { stage: 'resolved'; question: string; offered: ClarifyOption[]; intent: string; by: ClarifyResolvedBy }
  /** This turn's answer picked none of the offered intents: the turn hands off. */
  | { stage: 'failed'; question: string; offered: ClarifyOption[] };

/** The clarifying question the previous turn of the conversation asked. */
export interface PendingClarification {
  question: string;
  offered: ClarifyOption[];
}

/** A stored `clarify` value → the pending clarification; null for anything else (an old or foreign trace). */
export function pendingClarification(value: unknown): PendingClarification | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as { stage?: unknown; question?: unknown; offered?: unknown };
  if (v.stage !== 'asked' || typeof v.question !== 'string' || !Array.isArray(v.offered)) return null;
  const offered: ClarifyOption[] = [];
  for (const o of v.offered as unknown[]) {
    if (!o || typeof o !== 'object') return null;
    const { intent, label } = o as { intent?: unknown; label?: unknown };
    if (typeof intent !== 'string' || !intent) return null;
    offered.push({ intent, label: typeof label === 'string' ? label : null });
  }
  return offered.length ? { question: v.question, offered } : null;
}
