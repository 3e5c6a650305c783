import type { TenantId } from '@arbiter/common';

/** What the chat needs from the intent module (bound to IntentService in ChatModule). */
export const CHAT_INTENT_ROUTER = Symbol.for('arbiter.CHAT_INTENT_ROUTER');

export type ChatIntentAction = 'knowledge' | 'answer' | 'transfer';

/** docs/spec/intent-routing.md RouteResult, structurally. */
export interface ChatRouteResult {
  finalIntent: string | null;
  ruleId: string | null;
  finalConfidence: number;
  decisionReason: string;
  needClarify: boolean;
  candidates: { intent: string; confidence: number }[];
  routeTrace: object;
}

/** The rule carrying the decided intent. */
export interface ChatIntentRule {
  action: ChatIntentAction;
  reply: string | null;
  /** The intent's confidence profile for the retrieval confidence (docs/spec/evaluation.md §2). */
  confidenceProfile: string | null;
}

export interface ChatRouting {
  result: ChatRouteResult;
  rule: ChatIntentRule | null;
}

export interface ChatIntentRouter {
  /** `sessionId`: the chat session the turn runs in (recorded with the decision in the decision log). */
  route(tenantId: TenantId, message: string, sessionId: string): Promise<ChatRouting>;
  /** The rule of an intent the user picked from a clarifying question (null: the intent has no enabled rule). */
  ruleFor(tenantId: TenantId, intent: string): Promise<{ ruleId: string; rule: ChatIntentRule } | null>;
  /** Human labels (rule descriptions) of intents, for the clarifying question. */
  labels(tenantId: TenantId, intents: readonly string[]): Promise<Map<string, string>>;
}
