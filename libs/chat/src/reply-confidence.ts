/**
 * The confidences a chat reply reports (`POST /ai/chat`), each named for what it measures. Pure logic.
 *
 * - `routingConfidence`: how sure the intent router is of the intent (`finalConfidence`), whatever
 *   the reply turned out to be;
 * - `retrievalConfidence`: the retrieval confidence score of the turn's (best) knowledge lookup
 *   (docs/spec/evaluation.md §2: count 40 % + quality 40 % + scenario 20 %); null when no lookup was made;
 * - `answerConfidence`: the self-evaluation of the answer (docs/spec/evaluation.md §1, 0–100 scaled to 0–1) when it is
 *   already stored as the reply leaves (rule evaluation without an LLM); null otherwise (an LLM
 *   evaluation runs off the request path: read it later from the session);
 * - `confidence` (kept for compatibility): how far to trust the reply as an answer —
 *   a knowledge answer (or a pointer back to an earlier one): the retrieval confidence;
 *   a verified case's answer (case library): the case's similarity to the message;
 *   the not-found exit: 0, since the reply carries no answer (it says so and sets `shouldTransfer`;
 *   the lookup's own score stays in `retrievalConfidence`) — never the router's certainty;
 *   a reply that does not depend on the knowledge base (clarification, rule answer, hand-off): the
 *   routing confidence; a failed run: 0.
 */
export interface ReplyConfidence {
  confidence: number;
  routingConfidence: number;
  retrievalConfidence: number | null;
  answerConfidence: number | null;
}

export interface ReplyConfidenceInput {
  routing: number;
  retrieval: number | null;
  /** The stored self-evaluation (0–100), if any. */
  selfEvaluation: number | null;
  /** The knowledge turn took the legitimate exit ("not found"). */
  notFound?: boolean;
  /** A verified case answered: its similarity to the message. */
  caseSimilarity?: number | null;
  failed?: boolean;
}

const unit = (x: number): number => Math.round(Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * 1e6) / 1e6;

export function replyConfidence(input: ReplyConfidenceInput): ReplyConfidence {
  const routingConfidence = unit(input.routing);
  const retrievalConfidence = input.retrieval === null ? null : unit(input.retrieval);
  const answerConfidence = input.selfEvaluation === null ? null : unit(input.selfEvaluation / 100);
  const caseSimilarity = input.caseSimilarity === undefined || input.caseSimilarity === null ? null : unit(input.caseSimilarity);
  const confidence = input.failed || input.notFound ? 0 : (caseSimilarity ?? retrievalConfidence ?? routingConfidence);
  return { confidence, routingConfidence, retrievalConfidence, answerConfidence };
}
