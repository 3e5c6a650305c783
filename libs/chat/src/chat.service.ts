import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AIMessage, AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import { DomainException, FAST_LATENCY_BUCKETS, isDatabaseUnavailable, MetricsService, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { LlmService } from '@arbiter/llm';
import { DEFAULT_RETRIEVAL_NORMALIZATION, isConfidenceProfile, LOOKUP_TOOL_NAME, LookupService, loadExecutorPrompt, type LookupResult, type LookupResultItem } from '@arbiter/retrieval';
import { SessionsErrorCode, SessionsService, type DiagnosisSessionEntity, type SessionReference } from '@arbiter/sessions';
import { composeExtractiveAnswer, selectChunks } from './answer-composer.js';
import { carriedReferences } from './carried-references.js';
import { CHAT_INTENT_ROUTER, type ChatIntentRouter, type ChatRouteResult } from './chat-intent.port.js';
import { detectLanguage, type ChatLanguage } from './chat-language.js';
import { alreadyProvidedText, caveatText, clarifyText, emptyRuleReplyText, failureText, handoffText, notFoundText, sourcesBlock } from './chat-texts.js';
import { ChatErrorCode, ChatException } from './chat.exception.js';
import { ChatRepository } from './chat.repository.js';
import { decideAnswerPolicy, type ChatConfidenceEvent, type PolicyDecision } from './confidence-policy.js';
import { replyConfidence, type ReplyConfidence } from './reply-confidence.js';
import type { ChatRequestDto } from './dto/chat.dto.js';
import { createLookupTool, runKnowledgeAgent, type AgentRunResult, type LookupToolArgs } from './knowledge-agent.js';

export interface ChatReference {
  filePath: string;
  title: string;
  similarity: number;
  relevanceLevel: string;
}

export interface ChatResponse extends ReplyConfidence {
  sessionId: string;
  conversationId: string;
  reply: string;
  shouldTransfer: boolean;
  needClarify: boolean;
  candidates: { intent: string; confidence: number }[];
  intent: string | null;
  references: ChatReference[];
}

export type ChatBranch = 'clarify' | 'rule_answer' | 'transfer' | 'knowledge';

/** One lookup of this turn (the retrieval lib records its tool_invocation row). */
interface LookupRecord {
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
  /** Confidence events in order (BRIEF §4.3), e.g. ["medium-confidence"], ["fallback-triggered", "high-confidence"]. */
  events: ChatConfidenceEvent[];
  /**
   * What `confidence` reported (see `replyConfidence`): the lookup's retrieval confidence for a knowledge
   * answer, 0 for the not-found exit (the lookup's score beside it), else the routing confidence.
   */
  confidence?: { source: 'retrieval' | 'routing' | 'not_found'; score: number; level?: string; reasons?: string[]; profile?: string | null; retrieval?: number };
  policy?: PolicyDecision;
  lookups: {
    query: string;
    domain?: string;
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
  agent?: { ok: boolean; stepCount: number; toolCallCount: number; totalTokens: number; steps: AgentRunResult<unknown>['steps']; error?: string; errorCode?: string; answerOverridden?: boolean };
  fallback?: { reason: string; error?: string };
  /** File paths of the earlier references an "already provided" reply carried onto the session. */
  carriedReferences?: string[];
  error?: string;
  durationMs?: number;
}

interface TurnContext {
  tenantId: TenantId;
  session: DiagnosisSessionEntity;
  message: string;
  lang: ChatLanguage;
  intent: string | null;
  /** The routed rule's seed-003 profile for the retrieval confidence (null → the lookup's default). */
  confidenceProfile: string | null;
  trace: ChatTrace;
  route?: ChatRouteResult;
  /** Documents already cited in this conversation, with their strongest stored reference (empty for a new conversation). */
  cited: ReadonlyMap<string, SessionReference>;
  /** The message continues an existing conversation. */
  continued: boolean;
  /** CHAT_TIMEOUT_MS from the start of the turn: one deadline across every model call and tool. */
  deadline: AbortSignal;
}

interface TurnOutcome {
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
}

const MAX_CITED = 5;
const LEVEL_RANK: Record<string, number> = { PRECISE: 3, HIGHLY_RELEVANT: 2, REFERENCE: 1 };

/** Ranks lookups: with results first, then relevance level, PARTIAL over INSUFFICIENT, then confidence score. */
function lookupRank(rec: LookupRecord): number[] {
  const r = rec.result;
  return [rec.items.length > 0 ? 1 : 0, LEVEL_RANK[r.relevanceLevel] ?? 0, r.completenessHint === 'INSUFFICIENT' ? 0 : 1, r.confidence.score];
}

export function pickBestLookup(records: readonly LookupRecord[]): LookupRecord | null {
  let best: LookupRecord | null = null;
  for (const rec of records) {
    if (!best) {
      best = rec;
      continue;
    }
    const a = lookupRank(rec);
    const b = lookupRank(best);
    const i = a.findIndex((v, k) => v !== b[k]);
    if (i >= 0 && a[i]! > b[i]!) best = rec;
  }
  return best;
}

/**
 * Relevance level of one returned document from its calibrated relevance (docs/retrieval.md
 * "Grading"): the lookup's first result carries the lookup's own grade (graded with the tenant's
 * thresholds); the others are highly relevant (PRECISE when an exact hit) at the default threshold,
 * else REFERENCE — so the padding of a strong lookup is not shown as strong.
 */
export function itemLevel(item: Pick<LookupResultItem, 'documentId' | 'source' | 'relevance'>, lookup: Pick<LookupResult, 'relevanceLevel' | 'results'>): string {
  if (lookup.results[0]?.documentId === item.documentId && lookup.relevanceLevel !== 'REFERENCE') return lookup.relevanceLevel;
  if (item.relevance >= DEFAULT_RETRIEVAL_NORMALIZATION.highlyRelevantThreshold) return item.source === 'L0' ? 'PRECISE' : 'HIGHLY_RELEVANT';
  return 'REFERENCE';
}

/** Executor prompt (retrieval lib, versioned) plus the chat's output contract. */
function systemPrompt(lang: ChatLanguage): string {
  const contract =
    lang === 'zh'
      ? '\n\n## 输出要求\n用中文回答。只依据 lookup_knowledge 返回的资料作答，并在答案中用文档标题注明出处。'
      : '\n\n## Output\nAnswer in English. Answer only from what lookup_knowledge returned, and name the documents you used by title.';
  return loadExecutorPrompt() + contract;
}

/** What the model sees of a lookup: the graded signals and the chunks (content capped). */
function toolPayload(rec: LookupRecord): string {
  const r = rec.result;
  return JSON.stringify({
    relevanceLevel: r.relevanceLevel,
    completenessHint: r.completenessHint,
    dedupReason: r.dedupReason,
    retrievedDomainsThisSession: r.retrievedDomainsThisSession,
    domain: r.domain,
    confidence: { score: r.confidence.score, level: r.confidence.level },
    ...(rec.withheld.length ? { alreadyCitedInConversation: rec.withheld.map((x) => ({ title: x.title, filePath: x.filePath })) } : {}),
    results: rec.items.map((x) => ({ title: x.title, filePath: x.filePath, domain: x.domain, similarity: Math.round(x.similarity * 1000) / 1000, content: x.content.slice(0, 1500) })),
  });
}

/** The highest retrieval confidence among the turn's lookups; null when it made none. */
function bestRetrievalScore(trace: ChatTrace): number | null {
  return trace.lookups.length ? Math.max(...trace.lookups.map((l) => l.confidence.score)) : null;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `POST /ai/chat`: one user message → route → clarify / rule answer / hand-off / knowledge answer
 * (offline extractive, or a langchain tool-calling agent when an LLM is configured), with the
 * confidence policy of BRIEF §4.3, every step recorded on the session and its tool invocations.
 */
@Injectable()
export class ChatService {
  private readonly logger = new Logger('Chat');
  private readonly turns;
  private readonly latency;
  private toolModels?: { auto: { invoke(input: BaseMessage[], options?: { signal?: AbortSignal }): Promise<AIMessageChunk> }; none: { invoke(input: BaseMessage[], options?: { signal?: AbortSignal }): Promise<AIMessageChunk> } };

  constructor(
    private readonly sessions: SessionsService,
    private readonly lookups: LookupService,
    private readonly llm: LlmService,
    private readonly config: AppConfig,
    @Inject(CHAT_INTENT_ROUTER) private readonly router: ChatIntentRouter,
    private readonly repository: ChatRepository,
    metrics: MetricsService,
  ) {
    this.turns = metrics.counter('arbiter_chat_turns_total', 'Chat turns by branch, mode and outcome', ['branch', 'mode', 'outcome']);
    this.latency = metrics.histogram('arbiter_chat_turn_seconds', 'Chat turn latency', ['mode'], FAST_LATENCY_BUCKETS);
  }

  async executeChat(tenantId: TenantId, dto: ChatRequestDto): Promise<ChatResponse> {
    const started = performance.now();
    const message = dto.message.trim();
    const lang = detectLanguage(message);
    const mode = this.llm.enabled ? 'llm' : 'offline';
    // One transaction (conversation + RUNNING session): a failing database leaves nothing behind.
    const session = await this.startSession(tenantId, dto, message);
    const ctx: TurnContext = { tenantId, session, message, lang, intent: null, confidenceProfile: null, cited: new Map<string, SessionReference>(), continued: dto.conversationId !== undefined, trace: { version: 1, language: lang, mode, events: [], lookups: [] }, deadline: AbortSignal.timeout(Math.max(1, Math.round(this.config.chat.timeoutMs - (performance.now() - started)))) };
    let outcome: TurnOutcome;
    let finished: DiagnosisSessionEntity;
    try {
      outcome = await this.answer(ctx);
      const durationMs = Math.round(performance.now() - started);
      ctx.trace.durationMs = durationMs;
      finished = await this.finishSuccess(ctx, outcome, durationMs);
    } catch (error) {
      return this.fail(ctx, error, started);
    }
    this.turns.inc({ branch: outcome.branch, mode, outcome: 'success' });
    this.latency.observe({ mode }, (ctx.trace.durationMs ?? 0) / 1000);
    return {
      sessionId: session.id,
      conversationId: session.conversationId,
      reply: outcome.reply,
      ...replyConfidence({ routing: ctx.route?.finalConfidence ?? 0, retrieval: outcome.retrievalConfidence, selfEvaluation: finished.selfEvaluation?.confidence ?? null, notFound: outcome.notFound === true }),
      shouldTransfer: outcome.shouldTransfer,
      needClarify: outcome.needClarify,
      candidates: ctx.route?.candidates.map((c) => ({ intent: c.intent, confidence: c.confidence })) ?? [],
      intent: ctx.intent,
      references: outcome.references.map(({ filePath, title, similarity, relevanceLevel }) => ({ filePath, title, similarity, relevanceLevel })),
    };
  }

  private async finishSuccess(ctx: TurnContext, outcome: TurnOutcome, durationMs: number): Promise<DiagnosisSessionEntity> {
    const { tenantId, session } = ctx;
    return this.sessions.finish(tenantId, session.id, {
      status: 'SUCCESS',
      answer: outcome.reply,
      intent: ctx.intent,
      stepCount: outcome.stepCount,
      toolCallCount: outcome.toolCallCount,
      references: [
        ...outcome.references.map((r): SessionReference => ({ documentId: r.documentId, filePath: r.filePath, title: r.title, score: r.similarity })),
        ...(outcome.carriedReferences ?? []),
      ],
      knowledgeSearched: outcome.knowledgeSearched,
      routeTrace: this.routeTrace(ctx),
      latencyMs: durationMs,
    });
  }

  private async startSession(tenantId: TenantId, dto: ChatRequestDto, message: string): Promise<DiagnosisSessionEntity> {
    try {
      return await this.sessions.start(tenantId, {
        conversationId: dto.conversationId,
        channel: dto.channel ?? 'web',
        userRef: dto.userRef ?? null,
        query: message,
        media: (dto.media ?? []).map((m) => ({ type: m.type, ...(m.url ? { url: m.url } : {}) })),
      });
    } catch (error) {
      if (error instanceof DomainException && error.code === SessionsErrorCode.ConversationNotFound) {
        throw new ChatException(ChatErrorCode.ConversationNotFound, dto.conversationId);
      }
      throw error;
    }
  }

  /** RouteResult flattened (finalIntent … + ruleMatch/semanticMatch/llmJudge/fusion) plus `chat`, as monitoring and feedback read it. */
  private routeTrace(ctx: TurnContext): Record<string, unknown> {
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

  /**
   * The run failed. The session is closed FAILED with the error, so nothing stays half-written:
   * - any other error: the user still gets a polite reply and the `sessionId` (HTTP 200);
   * - the database is unavailable: 503 (retry), after closing the session when the database answers
   *   again within a short retry; if it never does, the session stays RUNNING and is logged.
   */
  private async fail(ctx: TurnContext, error: unknown, started: number): Promise<ChatResponse> {
    const durationMs = Math.round(performance.now() - started);
    const message = errorMessage(error);
    const dbDown = isDatabaseUnavailable(error);
    ctx.trace.error = message;
    ctx.trace.durationMs = durationMs;
    this.logger.error({ msg: 'chat turn failed', sessionId: ctx.session.id, databaseUnavailable: dbDown, err: message });
    const reply = failureText(ctx.lang);
    const patch = {
      status: 'FAILED' as const,
      answer: reply,
      intent: ctx.intent,
      error: message.slice(0, 4000),
      routeTrace: this.routeTrace(ctx),
      knowledgeSearched: ctx.trace.branch === 'knowledge',
      stepCount: ctx.trace.agent?.stepCount ?? ctx.trace.lookups.length,
      toolCallCount: ctx.trace.agent?.toolCallCount ?? ctx.trace.lookups.length,
      latencyMs: durationMs,
    };
    let closed: DiagnosisSessionEntity | null = null;
    for (let attempt = 0; attempt < (dbDown ? 3 : 1) && !closed; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      try {
        closed = await this.sessions.finish(ctx.tenantId, ctx.session.id, patch);
      } catch (finishError) {
        this.logger.error({ msg: 'could not record the failed chat turn', sessionId: ctx.session.id, attempt, err: errorMessage(finishError) });
      }
    }
    const branch = ctx.trace.branch ?? 'unknown';
    if (dbDown || !closed) {
      this.turns.inc({ branch, mode: ctx.trace.mode, outcome: 'unavailable' });
      if (dbDown) throw new ChatException(ChatErrorCode.DatabaseUnavailable, undefined, { sessionId: ctx.session.id, sessionClosed: closed !== null });
      throw error;
    }
    this.turns.inc({ branch, mode: ctx.trace.mode, outcome: 'failed' });
    return {
      sessionId: ctx.session.id,
      conversationId: ctx.session.conversationId,
      reply,
      ...replyConfidence({ routing: ctx.route?.finalConfidence ?? 0, retrieval: bestRetrievalScore(ctx.trace), selfEvaluation: closed.selfEvaluation?.confidence ?? null, failed: true }),
      shouldTransfer: true,
      needClarify: false,
      candidates: ctx.route?.candidates ?? [],
      intent: ctx.intent,
      references: [],
    };
  }

  private async answer(ctx: TurnContext): Promise<TurnOutcome> {
    const { result: route, rule } = await this.router.route(ctx.tenantId, ctx.message);
    ctx.route = route;
    ctx.intent = route.finalIntent;
    const routing = (branch: ChatBranch, reply: string, extra: Partial<TurnOutcome> = {}): TurnOutcome => {
      ctx.trace.branch = branch;
      ctx.trace.confidence = { source: 'routing', score: route.finalConfidence };
      return { branch, reply, retrievalConfidence: null, shouldTransfer: false, needClarify: false, references: [], knowledgeSearched: false, stepCount: 1, toolCallCount: 0, ...extra };
    };
    if (route.needClarify) {
      const labels = await this.router.labels(ctx.tenantId, route.candidates.map((c) => c.intent));
      const options = route.candidates.map((c) => ({ intent: c.intent, label: labels.get(c.intent) ?? null }));
      return routing('clarify', clarifyText(ctx.lang, options), { needClarify: true });
    }
    const action = route.finalIntent !== null && rule ? rule.action : 'knowledge';
    ctx.confidenceProfile = route.finalIntent !== null && rule ? rule.confidenceProfile : null;
    switch (action) {
      case 'answer':
        return routing('rule_answer', rule?.reply?.trim() || emptyRuleReplyText(ctx.lang));
      case 'transfer':
        return routing('transfer', handoffText(ctx.lang), { shouldTransfer: true });
      case 'knowledge':
        ctx.trace.branch = 'knowledge';
        if (ctx.continued) ctx.cited = await this.repository.citedInConversation(ctx.tenantId, ctx.session.conversationId, ctx.session.id);
        return this.llm.enabled ? this.llmKnowledge(ctx) : this.offlineKnowledge(ctx, 0, 0);
    }
  }

  /**
   * One lookup with the session's action memory (the retrieval lib writes its tool_invocation row),
   * then the conversation level of the memory: documents already cited in earlier turns are withheld.
   */
  private async runLookup(ctx: TurnContext, args: LookupToolArgs): Promise<LookupRecord> {
    const started = performance.now();
    const result = await this.lookups.lookup(ctx.tenantId, {
      sessionId: ctx.session.id,
      query: args.query,
      // Room for the documents withheld below.
      topK: Math.min(20, 5 + ctx.cited.size),
      ...(args.domain ? { domain: args.domain } : {}),
      ...(ctx.intent ? { intent: ctx.intent } : {}),
      // The agent may name the question's scenario (seed 003); else the routed intent's profile.
      ...(args.scenario ? { confidenceProfile: args.scenario } : isConfidenceProfile(ctx.confidenceProfile) ? { confidenceProfile: ctx.confidenceProfile } : {}),
    });
    const durationMs = Math.round(performance.now() - started);
    const items = result.results.filter((r) => !ctx.cited.has(r.filePath)).slice(0, 5);
    const withheld = result.results.filter((r) => ctx.cited.has(r.filePath));
    ctx.trace.lookups.push({
      query: args.query,
      ...(args.domain ? { domain: args.domain } : {}),
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

  private async offlineKnowledge(ctx: TurnContext, priorSteps: number, priorToolCalls: number): Promise<TurnOutcome> {
    const record = await this.runLookup(ctx, { query: ctx.message });
    return this.fromLookups(ctx, [record], null, priorSteps + 1, priorToolCalls + 1);
  }

  /**
   * Applies the confidence policy to the best lookup of the turn and builds the reply: the LLM's
   * answer when given (caveat prefixed, sources appended), else the extractive answer.
   */
  private fromLookups(ctx: TurnContext, records: readonly LookupRecord[], llmAnswer: string | null, stepCount: number, toolCallCount: number): TurnOutcome {
    const best = pickBestLookup(records);
    if (!best) throw new Error('no lookup to answer from');
    const r = best.result;
    // Every returned document of the turn, each once, strongest lookup first, then by similarity.
    const seen = new Set<string>();
    const withheld = [...new Map(records.flatMap((x) => x.withheld).map((w) => [w.filePath, w])).values()];
    const items: (LookupResultItem & { relevanceLevel: string })[] = [];
    for (const rec of [best, ...records.filter((x) => x !== best)]) {
      for (const item of rec.items) {
        if (seen.has(item.filePath)) continue;
        seen.add(item.filePath);
        items.push({ ...item, relevanceLevel: itemLevel(item, rec.result) });
      }
    }
    const policy = decideAnswerPolicy({
      relevanceLevel: r.relevanceLevel,
      completenessHint: r.completenessHint,
      confidenceLevel: r.confidence.level,
      resultCount: items.length,
      // Everything left was cited earlier in the conversation: the same "already given" signal as the lib's dedup.
      dedupReason: r.dedupReason ?? (withheld.length > 0 ? 'conversation_cited' : null),
      strongResultReturned: best.items.some((i) => itemLevel(i, r) === r.relevanceLevel),
    });
    ctx.trace.policy = policy;
    ctx.trace.events.push(r.confidence.event);
    // A knowledge answer (or a pointer back to one) reports its lookup's retrieval confidence; the not-found exit 0.
    ctx.trace.confidence =
      policy.action === 'legitimate_exit'
        ? { source: 'not_found', score: 0, retrieval: r.confidence.score, level: r.confidence.level, reasons: r.confidence.reasons }
        : { source: 'retrieval', score: r.confidence.score, level: r.confidence.level, reasons: r.confidence.reasons, profile: r.confidence.profile };
    const base = { branch: 'knowledge' as const, retrievalConfidence: r.confidence.score, shouldTransfer: policy.shouldTransfer, needClarify: false, knowledgeSearched: true, stepCount, toolCallCount };
    const toRef = (i: LookupResultItem & { relevanceLevel: string }) => ({ documentId: i.documentId, filePath: i.filePath, title: i.title, similarity: Math.round(i.similarity * 10000) / 10000, relevanceLevel: i.relevanceLevel });
    switch (policy.action) {
      case 'legitimate_exit':
        if (llmAnswer !== null && ctx.trace.agent) ctx.trace.agent.answerOverridden = true;
        return { ...base, reply: notFoundText(ctx.lang), references: [], notFound: true };
      case 'already_provided': {
        // The knowledge base covered the question in an earlier turn: the session keeps the references the
        // reply points back to (coverage must not count it as a knowledge gap); the reply quotes none of them.
        const pointedTo = withheld.slice(0, 3);
        const carried = carriedReferences(pointedTo, ctx.cited);
        ctx.trace.carriedReferences = carried.map((c) => c.filePath);
        return { ...base, reply: alreadyProvidedText(ctx.lang, pointedTo), references: [], carriedReferences: carried };
      }
      case 'answer':
      case 'answer_with_caveat': {
        const caveat = policy.action === 'answer_with_caveat';
        if (llmAnswer !== null) {
          const cited = selectChunks(items, MAX_CITED) as typeof items;
          const reply = [caveat ? caveatText(ctx.lang) : null, llmAnswer, sourcesBlock(ctx.lang, cited)].filter((x): x is string => !!x).join('\n\n');
          return { ...base, reply, references: cited.map(toRef) };
        }
        const composed = composeExtractiveAnswer(ctx.lang, ctx.message, items, { caveat });
        const used = new Set(composed.used.map((u) => u.filePath));
        return { ...base, reply: composed.text, references: items.filter((i) => used.has(i.filePath)).map(toRef) };
      }
    }
  }

  private models() {
    if (!this.toolModels) {
      const tool = createLookupTool(LOOKUP_TOOL_NAME);
      const model = this.llm.chatModel();
      this.toolModels = { auto: model.bindTools([tool]), none: model.bindTools([tool], { tool_choice: 'none' }) };
    }
    return this.toolModels;
  }

  private async llmKnowledge(ctx: TurnContext): Promise<TurnOutcome> {
    const models = this.models();
    const agent = await runKnowledgeAgent<LookupRecord>({
      systemPrompt: systemPrompt(ctx.lang),
      message: ctx.message,
      maxSteps: this.config.chat.maxSteps,
      toolName: LOOKUP_TOOL_NAME,
      signal: ctx.deadline,
      deps: {
        callModel: async (messages, allowTools, signal) => (await this.llm.invoke(messages, { model: allowTools ? models.auto : models.none, purpose: 'chat', signal })).message as AIMessage | AIMessageChunk,
        lookup: async (args) => {
          const record = await this.runLookup(ctx, args);
          return { content: toolPayload(record), lookup: record };
        },
        rejectToolCall: async (name, rawArgs, error) => {
          await this.sessions.recordToolInvocation(ctx.tenantId, {
            sessionId: ctx.session.id,
            toolName: name.slice(0, 64),
            arguments: rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? (rawArgs as Record<string, unknown>) : { raw: String(rawArgs) },
            status: 'FAILED',
            resultSummary: null,
            relevanceLevel: null,
            dedupReason: null,
            retrievalDetails: null,
            durationMs: 0,
            error,
          });
        },
      },
    });
    ctx.trace.agent = { ok: agent.ok, stepCount: agent.stepCount, toolCallCount: agent.toolCallCount, totalTokens: agent.totalTokens, steps: agent.steps, ...(agent.error ? { error: agent.error } : {}), ...(agent.errorCode ? { errorCode: agent.errorCode } : {}) };
    if (agent.ok && agent.answer !== null) {
      if (!agent.lookups.length) {
        // The model answered without consulting the knowledge base: not grounded, so not trusted.
        ctx.trace.fallback = { reason: 'no_lookup' };
        ctx.trace.events.push('fallback-triggered');
        return this.offlineKnowledge(ctx, agent.stepCount, agent.toolCallCount);
      }
      return this.fromLookups(ctx, agent.lookups, agent.answer, agent.stepCount, agent.toolCallCount);
    }
    // LLM failure or timeout → the offline answer; reuse what the agent already looked up (the
    // action memory would withhold those documents from a new lookup).
    ctx.trace.fallback = { reason: agent.errorCode ?? 'llm_failed', ...(agent.error ? { error: agent.error } : {}) };
    ctx.trace.events.push('fallback-triggered');
    this.logger.warn({ msg: 'chat agent fell back to the offline answer', sessionId: ctx.session.id, reason: ctx.trace.fallback.reason, error: agent.error });
    if (agent.lookups.some((l) => l.items.length > 0 || l.withheld.length > 0)) return this.fromLookups(ctx, agent.lookups, null, agent.stepCount, agent.toolCallCount);
    return this.offlineKnowledge(ctx, agent.stepCount, agent.toolCallCount);
  }
}
