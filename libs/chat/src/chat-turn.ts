/**
 * One chat turn's context and its trace (`route_trace.chat` on the session). Pure: no Nest, no
 * database. The orchestrator (chat.service.ts) creates the context, every step records into its
 * trace, and `routeTrace` is what the session stores (monitoring and feedback read it).
 */
import type { TenantId } from '@arbiter/common';
import { candidateMemoryKey, type LookupOptions, type LookupResult, type LookupResultItem, type MetadataFilter } from '@arbiter/retrieval';
import type { SessionReference } from '@arbiter/sessions';
import type { ChatRouteResult } from './chat-intent.port.js';
import type { ChatLanguage } from './chat-language.js';
import type { ClarifyTrace, PendingClarification } from './clarify-state.js';
import type { ChatTurnObserver } from './chat-stream.js';
import type { ChatConfidenceEvent, PolicyDecision } from './confidence-policy.js';
import type { PriorTurn, RewriteRule } from './follow-up-rewrite.js';
import type { AgentRunResult, LookupToolArgs } from './knowledge-agent.js';

export interface ChatReference {
  filePath: string;
  title: string;
  similarity: number;
  relevanceLevel: string;
  /** Where the quoted chunk came from (docs/retrieval.md "Sections of files"); null for JSON documents. */
  fileName: string | null;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
}

export type ChatBranch = 'clarify' | 'rule_answer' | 'transfer' | 'case_library' | 'knowledge';

/** One lookup of this turn (the retrieval lib records its tool_invocation row). */
export interface LookupRecord {
  args: LookupToolArgs;
  result: LookupResult;
  /** The lookup's results minus the documents already cited earlier in the conversation. */
  items: LookupResultItem[];
  /** Results withheld because they were cited earlier in the conversation. */
  withheld: LookupResultItem[];
  durationMs: number;
}

/** The chat part of the session's route trace (`route_trace.chat`). */
export interface ChatTrace {
  version: 1;
  language: ChatLanguage;
  mode: 'offline' | 'llm';
  branch?: ChatBranch;
  /** Confidence events in order (docs/spec/evaluation.md §3), e.g. ["medium-confidence"], ["fallback-triggered", "high-confidence"]. */
  events: ChatConfidenceEvent[];
  /**
   * What `confidence` reported (see `replyConfidence`): the lookup's retrieval confidence for a knowledge
   * answer, 0 for the not-found exit (the lookup's score beside it), else the routing confidence.
   */
  confidence?: {
    source: 'retrieval' | 'routing' | 'not_found' | 'case_library';
    score: number;
    level?: string;
    reasons?: string[];
    profile?: string | null;
    retrieval?: number;
  };
  policy?: PolicyDecision;
  /** The reply's `shouldTransfer`, recorded for the `handoff.requested` webhook event (docs/webhooks.md). */
  shouldTransfer?: boolean;
  /**
   * The case library's lookup (docs/learning.md "Feedback that teaches"): the answering case (branch
   * `case_library`), or the best similarity below the threshold; absent when the turn did not consult it
   * (rule answer, hand-off) or the tenant has no verified case.
   */
  caseLibrary?:
    | { answered: true; caseId: string; sourceType: string; similarity: number; threshold: number; version: string }
    | { answered: false; bestSimilarity: number | null; threshold: number; cases: number };
  /**
   * Conversations that remember (docs/chat-clients.md "Conversations"): the standalone question this turn was resolved to
   * and how (`by`: a rule of follow-up-rewrite.ts, `llm` for the condensing call, `none` when it stood alone), the
   * topic the next follow-up carries, what was carried, whether it repeats an earlier question (only then "already
   * provided"), the earlier turns read and those the model saw; `llmError` when the condensing call failed and the
   * rules answered instead.
   */
  followUp?: {
    message: string;
    query: string;
    /** What the offline lookup searched (see `FollowUpRewrite.search`). */
    search: string;
    by: RewriteRule | 'llm';
    topic: string;
    carried: { intent: string | null; domain: string | null };
    repeat: boolean;
    historyTurns: number;
    modelHistoryMessages?: number;
    rule?: RewriteRule;
    llmError?: string;
    llmMs?: number;
  };
  lookups: {
    query: string;
    domain?: string;
    /** The domain the lookup answered from (its first exact hit's, else its top result's; docs/spec/retrieval.md §4). */
    resultDomain?: string | null;
    relevanceLevel: string;
    completenessHint: string | null;
    dedupReason: string | null;
    l0MatchCount: number;
    l1TopSimilarity: number | null;
    resultFilePaths: string[];
    /** Results dropped because they were already cited in this conversation (conversation-level memory). */
    alreadyCitedFilePaths: string[];
    confidence: { score: number; level: string; event: string; reasons: string[] };
    durationMs: number;
  }[];
  agent?: {
    ok: boolean;
    stepCount: number;
    toolCallCount: number;
    totalTokens: number;
    steps: AgentRunResult<unknown>['steps'];
    error?: string;
    errorCode?: string;
    answerOverridden?: boolean;
  };
  fallback?: { reason: string; error?: string };
  /** Two-stage clarification (docs/chat-clients.md "Clarification"): the question this turn asked, or how it answered the previous one. */
  clarify?: ClarifyTrace;
  /** File paths of the earlier references an "already provided" reply carried onto the session. */
  carriedReferences?: string[];
  error?: string;
  durationMs?: number;
}

export interface TurnContext {
  tenantId: TenantId;
  session: { id: string; conversationId: string };
  message: string;
  lang: ChatLanguage;
  intent: string | null;
  /** The routed rule's seed-003 profile for the retrieval confidence (null → the lookup's default). */
  confidenceProfile: string | null;
  trace: ChatTrace;
  route?: ChatRouteResult;
  /**
   * Documents (sections of files) already cited in this conversation, by their action-memory key (`candidateMemoryKey`),
   * with their strongest stored reference (empty for a new conversation).
   */
  cited: ReadonlyMap<string, SessionReference>;
  /** The chat request's metadata filter of its lookups; absent → the tenant's default (docs/retrieval.md "Metadata filters"). */
  filter?: MetadataFilter;
  /** Until the turn's first lookup: the tenant's settings row its session start read (`LookupOptions.freshSession`). */
  freshLookup?: LookupOptions['freshSession'] | undefined;
  /** The clarifying question the conversation's previous turn asked (this message may answer it). */
  pendingClarify?: PendingClarification;
  /** The message continues an existing conversation. */
  continued: boolean;
  /** The conversation's earlier answered turns, oldest first (at most CHAT_HISTORY_TURNS; empty for a new conversation). */
  history: PriorTurn[];
  /**
   * The question repeats an earlier one of the conversation: only then are the documents already cited withheld
   * ("already provided", docs/spec/retrieval.md §4 deviation); a new question about them is answered from them again.
   */
  repeat: boolean;
  /** The earlier messages the model sees before the question (the client's `messages` on /v1, else the stored turns within the limits). */
  modelHistory: { role: 'user' | 'assistant'; content: string }[];
  /** What the offline lookup searches for a resolved follow-up (absent → `message`). */
  search?: string;

  /** CHAT_TIMEOUT_MS from the start of the turn: one deadline across every model call and tool (and the client's disconnect, when streamed). */
  deadline: AbortSignal;
  /** A streamed turn's listener (route and lookup events, the client's disconnect); absent for a plain request. */
  observer?: ChatTurnObserver;
}

export interface TurnOutcome {
  branch: ChatBranch;
  reply: string;
  /** The retrieval confidence score of the turn's best lookup; null when the turn made none. */
  retrievalConfidence: number | null;
  /** The knowledge turn took the legitimate exit: the reply carries no answer. */
  notFound?: boolean;
  shouldTransfer: boolean;
  needClarify: boolean;
  references: (ChatReference & { documentId: string })[];
  /**
   * References stored on the session although the reply quotes nothing new: the documents an
   * "already provided" reply points back to (see `carriedReferences`).
   */
  carriedReferences?: SessionReference[];
  knowledgeSearched: boolean;
  stepCount: number;
  toolCallCount: number;
  /** The verified case that answered (branch `case_library`). */
  caseLibrary?: { caseId: string; query: string; similarity: number; threshold: number };
}

export function newTurnContext(
  init: Pick<TurnContext, 'tenantId' | 'session' | 'message' | 'lang' | 'continued' | 'deadline'> & { mode: ChatTrace['mode'] },
): TurnContext {
  const { mode, ...rest } = init;
  return {
    ...rest,
    intent: null,
    confidenceProfile: null,
    cited: new Map<string, SessionReference>(),
    history: [],
    modelHistory: [],
    repeat: false,
    trace: { version: 1, language: init.lang, mode, events: [], lookups: [] },
  };
}

const NOTHING_CITED: ReadonlyMap<string, SessionReference> = new Map();

/**
 * A lookup's record for this turn: when the question repeats an earlier one, the conversation level of the memory
 * withholds the documents already cited in earlier turns (at most 5 new ones are kept); the lookup goes into the trace.
 */
export function recordLookup(ctx: TurnContext, args: LookupToolArgs, result: LookupResult, durationMs: number): LookupRecord {
  // Only a repeated question is answered "already provided"; a new one may quote the cited documents again.
  const cited = ctx.repeat ? ctx.cited : NOTHING_CITED;
  const items = result.results.filter((r) => !cited.has(candidateMemoryKey(r))).slice(0, 5);
  const withheld = result.results.filter((r) => cited.has(candidateMemoryKey(r)));
  ctx.trace.lookups.push({
    query: args.query,
    ...(args.domain ? { domain: args.domain } : {}),
    resultDomain: result.domain,
    relevanceLevel: result.relevanceLevel,
    completenessHint: result.completenessHint,
    dedupReason: result.dedupReason,
    l0MatchCount: result.l0MatchCount,
    l1TopSimilarity: result.l1TopSimilarity,
    resultFilePaths: items.map((r) => r.filePath),
    alreadyCitedFilePaths: withheld.map((r) => r.filePath),
    confidence: { score: result.confidence.score, level: result.confidence.level, event: result.confidence.event, reasons: result.confidence.reasons },
    durationMs,
  });
  return { args, result, items, withheld, durationMs };
}

/** RouteResult flattened (finalIntent … + ruleMatch/semanticMatch/llmJudge/fusion) plus `chat`, as monitoring and feedback read it. */
export function routeTrace(ctx: Pick<TurnContext, 'route' | 'trace'>): Record<string, unknown> {
  const route = ctx.route;
  const base: Record<string, unknown> = route
    ? {
        finalIntent: route.finalIntent,
        ruleId: route.ruleId,
        finalConfidence: route.finalConfidence,
        decisionReason: route.decisionReason,
        needClarify: route.needClarify,
        candidates: route.candidates,
        ...(route.routeTrace as Record<string, unknown>),
      }
    : {};
  return { ...base, chat: ctx.trace };
}

/** The highest retrieval confidence among the turn's lookups; null when it made none. */
export function bestRetrievalScore(trace: ChatTrace): number | null {
  return trace.lookups.length ? Math.max(...trace.lookups.map((l) => l.confidence.score)) : null;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
