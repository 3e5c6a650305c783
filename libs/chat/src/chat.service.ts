import { Inject, Injectable, Logger } from '@nestjs/common';
import { CaseLibraryAnswers } from '@arbiter/case-library';
import { DomainException, FAST_LATENCY_BUCKETS, isDatabaseUnavailable, MetricsService, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { LlmService } from '@arbiter/llm';
import { isConfidenceProfile, LookupService, requestFilter, type LookupOptions } from '@arbiter/retrieval';
import { SessionsErrorCode, SessionsService, type DiagnosisSessionEntity, type SessionReference } from '@arbiter/sessions';
import { CHAT_INTENT_ROUTER, type ChatIntentRouter, type ChatRouting } from './chat-intent.port.js';
import { detectLanguage } from './chat-language.js';
import { clarifyText, emptyRuleReplyText, failureText, handoffText } from './chat-texts.js';
import {
  bestRetrievalScore,
  errorMessage,
  newTurnContext,
  recordLookup,
  routeTrace,
  type ChatBranch,
  type ChatReference,
  type LookupRecord,
  type TurnContext,
  type TurnOutcome,
} from './chat-turn.js';
import { ChatErrorCode, ChatException } from './chat.exception.js';
import { ChatRepository } from './chat.repository.js';
import { pickClarification } from './clarify-pick.js';
import type { ClarifyResolvedBy, PendingClarification } from './clarify-state.js';
import { ClientDisconnectedError, lookupEvent, type ChatTurnObserver } from './chat-stream.js';
import { replyConfidence, type ReplyConfidence } from './reply-confidence.js';
import type { ChatRequestDto } from './dto/chat.dto.js';
import { answerFromLookups, answerPreamble } from './knowledge-answer.js';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import {
  condensedQuestion,
  condensePrompt,
  historyMessages,
  isRepeatQuestion,
  priorTurnsFromMessages,
  rewriteFollowUp,
  type FollowUpRewrite,
  type PriorTurn,
} from './follow-up-rewrite.js';
import { MAX_CHAT_MESSAGE_LENGTH } from './dto/chat.dto.js';
import { KnowledgeAgentRunner } from './knowledge-agent.runner.js';
import type { LookupToolArgs } from './knowledge-agent.js';

type FreshSessionSettings = NonNullable<LookupOptions['freshSession']>['settings'];

export interface ChatResponse extends ReplyConfidence {
  sessionId: string;
  conversationId: string;
  reply: string;
  shouldTransfer: boolean;
  needClarify: boolean;
  candidates: { intent: string; confidence: number }[];
  intent: string | null;
  references: ChatReference[];
  /** The verified case that answered (branch `case_library`), else null. */
  caseLibrary: { caseId: string; query: string; similarity: number; threshold: number } | null;
}

/**
 * `POST /ai/chat`: one user message → route → clarify / rule answer / hand-off / knowledge answer
 * (offline extractive, or the LLM agent of knowledge-agent.runner.ts when an LLM is configured), with
 * the confidence policy of docs/spec/evaluation.md §3 (knowledge-answer.ts), every step recorded on the session
 * (chat-turn.ts) and its tool invocations. This class only orchestrates the turn.
 */
@Injectable()
export class ChatService {
  private readonly logger = new Logger('Chat');
  private readonly turns;
  private readonly latency;

  constructor(
    private readonly sessions: SessionsService,
    private readonly lookups: LookupService,
    private readonly llm: LlmService,
    private readonly config: AppConfig,
    @Inject(CHAT_INTENT_ROUTER) private readonly router: ChatIntentRouter,
    private readonly repository: ChatRepository,
    private readonly agent: KnowledgeAgentRunner,
    private readonly cases: CaseLibraryAnswers,
    metrics: MetricsService,
  ) {
    this.turns = metrics.counter('arbiter_chat_turns_total', 'Chat turns by branch, mode and outcome', ['branch', 'mode', 'outcome']);
    this.latency = metrics.histogram('arbiter_chat_turn_seconds', 'Chat turn latency', ['mode'], FAST_LATENCY_BUCKETS);
  }

  /** `observer` (a streamed turn, chat-stream.service.ts) hears the route and each lookup, and its signal stops the turn. */
  async executeChat(tenantId: TenantId, dto: ChatRequestDto, observer?: ChatTurnObserver): Promise<ChatResponse> {
    const started = performance.now();
    // A bad filter is a 400 before anything is written (docs/retrieval.md "Metadata filters").
    const filter = requestFilter(dto.filter);
    const message = dto.message.trim();
    const lang = detectLanguage(message);
    const mode = this.llm.enabled ? 'llm' : 'offline';
    // One statement (conversation + RUNNING session, and the documents the conversation already cited): a failing database leaves nothing behind.
    const { session, cited, clarify, turns, settings } = await this.startSession(tenantId, dto, message);
    observer?.started?.({ sessionId: session.id, conversationId: session.conversationId });
    const ctx = newTurnContext({
      tenantId,
      session,
      message,
      lang,
      mode,
      continued: dto.conversationId !== undefined,
      deadline: AbortSignal.timeout(Math.max(1, Math.round(this.config.chat.timeoutMs - (performance.now() - started)))),
    });
    ctx.cited = cited;
    ctx.history = turns;
    // The turn's first lookup skips its read statement: the session is new, and its start read the settings.
    ctx.freshLookup = { settings };
    if (clarify) ctx.pendingClarify = clarify;
    if (filter) ctx.filter = filter;
    if (observer) {
      ctx.observer = observer;
      // The client's disconnect aborts the model call like the deadline does (knowledge-agent.ts).
      if (observer.signal) ctx.deadline = AbortSignal.any([ctx.deadline, observer.signal]);
    }
    let outcome: TurnOutcome;
    let finished: DiagnosisSessionEntity;
    try {
      outcome = await this.answer(ctx);
      throwIfDisconnected(ctx);
      // The reply is final: a streamed turn sends it now, while its records commit; `done` waits for the finish (docs/hot-paths.md "Chat turn").
      observer?.answered?.(outcome.reply);
      const durationMs = Math.round(performance.now() - started);
      ctx.trace.durationMs = durationMs;
      finished = await this.finishSuccess(ctx, outcome, durationMs, session);
    } catch (error) {
      return this.fail(ctx, error, started, session);
    }
    this.turns.inc({ branch: outcome.branch, mode, outcome: 'success' });
    this.latency.observe({ mode }, (ctx.trace.durationMs ?? 0) / 1000);
    return {
      sessionId: session.id,
      conversationId: session.conversationId,
      reply: outcome.reply,
      ...replyConfidence({
        routing: ctx.route?.finalConfidence ?? 0,
        retrieval: outcome.retrievalConfidence,
        selfEvaluation: finished.selfEvaluation?.confidence ?? null,
        notFound: outcome.notFound === true,
        caseSimilarity: outcome.caseLibrary?.similarity ?? null,
      }),
      shouldTransfer: outcome.shouldTransfer,
      needClarify: outcome.needClarify,
      candidates: ctx.route?.candidates.map((c) => ({ intent: c.intent, confidence: c.confidence })) ?? [],
      intent: ctx.intent,
      references: outcome.references.map(({ filePath, title, similarity, relevanceLevel, fileName, page, pageEnd, section }) => ({
        filePath,
        title,
        similarity,
        relevanceLevel,
        fileName,
        page,
        pageEnd,
        section,
      })),
      caseLibrary: outcome.caseLibrary ?? null,
    };
  }

  private async finishSuccess(ctx: TurnContext, outcome: TurnOutcome, durationMs: number, running: DiagnosisSessionEntity): Promise<DiagnosisSessionEntity> {
    const references = [
      ...outcome.references.map((r): SessionReference => ({
        documentId: r.documentId,
        filePath: r.filePath,
        title: r.title,
        score: r.similarity,
        // A section of a file says where it came from (docs/retrieval.md "Sections of files"); JSON documents' references stay as they were.
        ...(r.fileName ? { fileName: r.fileName, page: r.page, pageEnd: r.pageEnd, section: r.section } : {}),
      })),
      ...(outcome.carriedReferences ?? []),
    ];
    ctx.trace.shouldTransfer = outcome.shouldTransfer;
    const patch = {
      status: 'SUCCESS' as const,
      answer: outcome.reply,
      intent: ctx.intent,
      stepCount: outcome.stepCount,
      toolCallCount: outcome.toolCallCount,
      references,
      knowledgeSearched: outcome.knowledgeSearched,
      routeTrace: routeTrace(ctx),
      latencyMs: durationMs,
    };
    // Given the running row, the finish is one statement with the evaluation and coverage writes (docs/hot-paths.md "Chat turn").
    return this.sessions.finish(ctx.tenantId, running.id, patch, running);
  }

  /**
   * Opens the session; a continued conversation also reads the documents it already cited and the clarifying
   * question its previous turn asked, if any (same statement).
   */
  private async startSession(
    tenantId: TenantId,
    dto: ChatRequestDto,
    message: string,
  ): Promise<{
    session: DiagnosisSessionEntity;
    cited: Map<string, SessionReference>;
    clarify: PendingClarification | null;
    turns: PriorTurn[];
    settings: FreshSessionSettings;
  }> {
    try {
      const input = {
        conversationId: dto.conversationId,
        channel: dto.channel ?? 'web',
        userRef: dto.userRef ?? null,
        query: message,
        media: (dto.media ?? []).map((m) => ({ type: m.type, ...(m.url ? { url: m.url } : {}) })),
      };
      const read = this.repository.turnRead(dto.conversationId !== undefined, this.lookups.settingsJson(tenantId));
      const started = await this.sessions.startReading(tenantId, input, read);
      const { settings, ...state } = this.repository.turnState(started.extra);
      return { session: started.session, ...state, settings: this.lookups.freshSessionSettings(settings) };
    } catch (error) {
      if (error instanceof DomainException && error.code === SessionsErrorCode.ConversationNotFound) {
        throw new ChatException(ChatErrorCode.ConversationNotFound, dto.conversationId);
      }
      throw error;
    }
  }

  /**
   * The run failed. The session is closed FAILED with the error, so nothing stays half-written:
   * - any other error: the user still gets a polite reply and the `sessionId` (HTTP 200);
   * - the database is unavailable: 503 (retry), after closing the session when the database answers
   *   again within a short retry; if it never does, the session stays RUNNING and is logged.
   */
  private async fail(ctx: TurnContext, error: unknown, started: number, running: DiagnosisSessionEntity): Promise<ChatResponse> {
    const durationMs = Math.round(performance.now() - started);
    const message = errorMessage(error);
    const dbDown = isDatabaseUnavailable(error);
    ctx.trace.error = message;
    ctx.trace.durationMs = durationMs;
    ctx.trace.shouldTransfer = true;
    this.logger.error({ msg: 'chat turn failed', sessionId: ctx.session.id, databaseUnavailable: dbDown, err: message });
    const reply = failureText(ctx.lang);
    const patch = {
      status: 'FAILED' as const,
      answer: reply,
      intent: ctx.intent,
      error: message.slice(0, 4000),
      routeTrace: routeTrace(ctx),
      knowledgeSearched: ctx.trace.branch === 'knowledge',
      stepCount: ctx.trace.agent?.stepCount ?? ctx.trace.lookups.length,
      toolCallCount: ctx.trace.agent?.toolCallCount ?? ctx.trace.lookups.length,
      latencyMs: durationMs,
    };
    let closed: DiagnosisSessionEntity | null = null;
    for (let attempt = 0; attempt < (dbDown ? 3 : 1) && !closed; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      try {
        closed = await this.sessions.finish(ctx.tenantId, ctx.session.id, patch, running);
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
      ...replyConfidence({
        routing: ctx.route?.finalConfidence ?? 0,
        retrieval: bestRetrievalScore(ctx.trace),
        selfEvaluation: closed.selfEvaluation?.confidence ?? null,
        failed: true,
      }),
      shouldTransfer: true,
      needClarify: false,
      candidates: ctx.route?.candidates ?? [],
      intent: ctx.intent,
      references: [],
      caseLibrary: null,
    };
  }

  private async answer(ctx: TurnContext): Promise<TurnOutcome> {
    // What the model sees before the message: the OpenAI-compatible endpoint's `messages` as its client knows the
    // conversation, else the stored turns within CHAT_HISTORY_TURNS / CHAT_HISTORY_CHARS.
    const clientHistory = ctx.observer?.history ?? [];
    ctx.modelHistory = clientHistory.length
      ? [...clientHistory]
      : historyMessages(ctx.history, { turns: this.config.chat.historyTurns, chars: this.config.chat.historyChars });
    // The answer to a clarifying question is not a follow-up to resolve: it picks an option (routeTurn).
    const followUp = ctx.pendingClarify ? null : await this.resolveFollowUp(ctx);
    const { routing: decided, handoff } = await this.routeTurn(ctx, followUp);
    const { result: route, rule } = decided;
    ctx.route = route;
    ctx.intent = route.finalIntent;
    throwIfDisconnected(ctx);
    ctx.observer?.route?.({
      intent: route.finalIntent,
      confidence: route.finalConfidence,
      needClarify: route.needClarify,
      decisionReason: route.decisionReason,
      candidates: route.candidates.map((c) => ({ intent: c.intent, confidence: c.confidence })),
    });
    const routing = (branch: ChatBranch, reply: string, extra: Partial<TurnOutcome> = {}): TurnOutcome => {
      ctx.trace.branch = branch;
      ctx.trace.confidence = { source: 'routing', score: route.finalConfidence };
      return {
        branch,
        reply,
        retrievalConfidence: null,
        shouldTransfer: false,
        needClarify: false,
        references: [],
        knowledgeSearched: false,
        stepCount: 1,
        toolCallCount: 0,
        ...extra,
      };
    };
    // The answer to a clarifying question picked none of the offered intents: the second failure hands off.
    if (handoff) return routing('transfer', handoffText(ctx.lang), { shouldTransfer: true });
    // Decision order (docs/learning.md "Feedback that teaches"): the decided intent's hand-off and rule answer
    // (operator-authored behaviour of the intent) → a verified case → clarification → the knowledge base.
    const explicit = !route.needClarify && route.finalIntent !== null && rule !== null && (rule.action === 'answer' || rule.action === 'transfer');
    if (!explicit) {
      const caseOutcome = await this.caseAnswer(ctx);
      if (caseOutcome !== null) return caseOutcome;
    }
    if (route.needClarify) {
      const labels = await this.router.labels(
        ctx.tenantId,
        route.candidates.map((c) => c.intent),
      );
      const options = route.candidates.map((c) => ({ intent: c.intent, label: labels.get(c.intent) ?? null }));
      // Stored with the turn, so the next message can pick one on any replica (docs/chat-clients.md "Clarification").
      if (options.length) ctx.trace.clarify = { stage: 'asked', question: ctx.message, offered: options };
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
        return this.llm.enabled ? this.llmKnowledge(ctx) : this.offlineKnowledge(ctx, 0, 0);
    }
  }

  /**
   * Routes the message; after a clarifying question (docs/chat-clients.md "Clarification"), the message that
   * picks one of the offered intents (pickClarification, else the router deciding one of them) resolves it
   * (`clarify_resolved`), and one that picks none hands off (`handoff`).
   */
  private async routeTurn(ctx: TurnContext, followUp: Pick<FollowUpRewrite, 'carry'> | null): Promise<{ routing: ChatRouting; handoff: boolean }> {
    const pending = ctx.pendingClarify;
    if (pending) {
      const picked = pickClarification(ctx.message, pending.offered);
      if (picked.kind === 'picked') return { routing: await this.resolveClarification(ctx, pending, picked.intent, picked.by), handoff: false };
    }
    const routed = await this.router.route(ctx.tenantId, ctx.message, ctx.session.id);
    if (!pending) return { routing: await this.carryIntent(ctx, routed, followUp), handoff: false };
    const intent = routed.result.finalIntent;
    if (!routed.result.needClarify && intent !== null && pending.offered.some((o) => o.intent === intent)) {
      return { routing: await this.resolveClarification(ctx, pending, intent, 'routing'), handoff: false };
    }
    ctx.trace.clarify = { stage: 'failed', question: pending.question, offered: pending.offered };
    return { routing: routed, handoff: true };
  }

  /**
   * Conversations that remember (docs/chat-clients.md "Conversations"): a follow-up resolved to a standalone question
   * from the conversation's earlier turns — with a model, one condensing call within a third of the turn's deadline,
   * falling back to the rules of follow-up-rewrite.ts on a timeout, an error or an unusable answer; without one, the
   * rules. The turn then routes, looks up and answers the standalone question (`ctx.message`); the trace records it.
   */
  private async resolveFollowUp(ctx: TurnContext): Promise<Pick<FollowUpRewrite, 'carry'>> {
    const clientHistory = ctx.observer?.history ?? [];
    // The OpenAI-compatible endpoint's `messages` are the conversation as its client knows it; else the stored turns.
    const turns = clientHistory.length ? priorTurnsFromMessages(clientHistory) : ctx.history;
    const modelHistory = ctx.modelHistory;
    const message = ctx.message;
    const rules = rewriteFollowUp(message, turns);
    // A first message has nothing to resolve (and nothing in the trace).
    if (turns.length === 0) return rules;
    let resolved: Omit<FollowUpRewrite, 'by'> & { by: FollowUpRewrite['by'] | 'llm' } = rules;
    let llmError: string | undefined;
    let llmMs: number | undefined;
    if (this.llm.enabled && modelHistory.length > 0) {
      const started = performance.now();
      try {
        const prompt = condensePrompt(message, modelHistory);
        const result = await this.llm.invoke([new SystemMessage(prompt.system), new HumanMessage(prompt.user)], {
          purpose: 'chat_condense',
          signal: ctx.deadline,
          // Within the turn's deadline (one LLM_TIMEOUT_MS call, at most a third of CHAT_TIMEOUT_MS), leaving the rest to the answer.
          timeoutMs: Math.max(1, Math.min(this.llm.timeoutMs, Math.floor(this.config.chat.timeoutMs / 3))),
        });
        const question = condensedQuestion(result.content, MAX_CHAT_MESSAGE_LENGTH);
        if (question === null) llmError = 'the model returned no usable question';
        else resolved = { ...rules, query: question, by: 'llm', topic: rules.by === 'none' ? question : rules.topic };
      } catch (error) {
        llmError = errorMessage(error);
      }
      llmMs = Math.round(performance.now() - started);
      throwIfDisconnected(ctx);
    }
    ctx.message = resolved.query;
    // The condensed question is what the offline lookup searches too; the rules' search may be narrower (`search`).
    ctx.search = resolved.by === 'llm' ? resolved.query : resolved.search;
    ctx.repeat = ctx.history.length > 0 && isRepeatQuestion(resolved.query, ctx.history);
    ctx.trace.followUp = {
      message,
      query: resolved.query,
      search: ctx.search,
      by: resolved.by,
      topic: resolved.topic,
      carried: resolved.carry,
      repeat: ctx.repeat,
      historyTurns: turns.length,
      modelHistoryMessages: modelHistory.length,
      ...(resolved.by === 'llm' ? { rule: rules.by } : {}),
      ...(llmError !== undefined ? { llmError } : {}),
      ...(llmMs !== undefined ? { llmMs } : {}),
    };
    return resolved;
  }

  /**
   * A follow-up on the earlier topic ("还是不行") keeps the earlier turn's intent when its standalone question decides
   * none or would ask to clarify; the routing's own decision stays in the trace (`followUp`).
   */
  private async carryIntent(ctx: TurnContext, routed: ChatRouting, followUp: Pick<FollowUpRewrite, 'carry'> | null): Promise<ChatRouting> {
    const intent = followUp?.carry.intent ?? null;
    const result = routed.result;
    if (intent === null || (!result.needClarify && result.finalIntent !== null)) return routed;
    const found = await this.router.ruleFor(ctx.tenantId, intent);
    if (!found) return routed;
    const confidence = result.candidates.find((c) => c.intent === intent)?.confidence ?? result.finalConfidence;
    return {
      result: {
        ...result,
        finalIntent: intent,
        ruleId: found.ruleId,
        finalConfidence: confidence,
        needClarify: false,
        candidates: [{ intent, confidence }],
        routeTrace: {
          ...(result.routeTrace as Record<string, unknown>),
          followUp: { carriedIntent: intent, routedIntent: result.finalIntent, routedNeedClarify: result.needClarify },
        },
      },
      rule: found.rule,
    };
  }

  /**
   * The user picked `intent`: the turn goes on as one routed to it, about the question that was clarified (a
   * bare number says nothing else; a label or a paraphrase may add detail, so it is kept with the question).
   */
  private async resolveClarification(ctx: TurnContext, pending: PendingClarification, intent: string, by: ClarifyResolvedBy): Promise<ChatRouting> {
    const found = await this.router.ruleFor(ctx.tenantId, intent);
    const answer = ctx.message;
    ctx.trace.clarify = { stage: 'resolved', question: pending.question, offered: pending.offered, intent, by };
    ctx.message = by === 'number' ? pending.question : `${pending.question}\n${answer}`;
    // "2" has no language of its own: the reply follows the question's.
    ctx.lang = detectLanguage(ctx.message);
    ctx.trace.language = ctx.lang;
    return {
      result: {
        finalIntent: intent,
        ruleId: found?.ruleId ?? null,
        // The user named the intent.
        finalConfidence: 1,
        decisionReason: 'clarify_resolved',
        needClarify: false,
        candidates: [{ intent, confidence: 1 }],
        routeTrace: { clarification: { by, answer, question: pending.question } },
      },
      rule: found?.rule ?? null,
    };
  }

  /**
   * The case library: a verified case whose question matches the message at or above the tenant's threshold
   * answers with its answer (in-memory index: no round trip in the steady state). The lookup is recorded in
   * the trace either way; null → the turn goes on.
   */
  private async caseAnswer(ctx: TurnContext): Promise<TurnOutcome | null> {
    const found = await this.cases.lookup(ctx.tenantId, ctx.message);
    if (found.kind === 'none') {
      if (found.cases > 0) ctx.trace.caseLibrary = { answered: false, bestSimilarity: found.bestSimilarity, threshold: found.threshold, cases: found.cases };
      return null;
    }
    const hit = found.answer;
    ctx.trace.branch = 'case_library';
    ctx.trace.caseLibrary = {
      answered: true,
      caseId: hit.caseId,
      sourceType: hit.sourceType,
      similarity: hit.similarity,
      threshold: hit.threshold,
      version: hit.version,
    };
    ctx.trace.confidence = { source: 'case_library', score: hit.similarity };
    return {
      branch: 'case_library',
      reply: hit.answer,
      retrievalConfidence: null,
      shouldTransfer: false,
      needClarify: false,
      references: [],
      knowledgeSearched: false,
      stepCount: 1,
      toolCallCount: 0,
      caseLibrary: { caseId: hit.caseId, query: hit.query, similarity: hit.similarity, threshold: hit.threshold },
    };
  }

  /**
   * One lookup with the session's action memory (the retrieval lib writes its tool_invocation row),
   * then the conversation level of the memory (chat-turn.ts `recordLookup`).
   */
  private async runLookup(ctx: TurnContext, args: LookupToolArgs): Promise<LookupRecord> {
    throwIfDisconnected(ctx);
    const started = performance.now();
    // Only the turn's first lookup: later ones (the agent's) find the memory the first one wrote.
    const fresh = ctx.freshLookup;
    ctx.freshLookup = undefined;
    const result = await this.lookups.lookup(
      ctx.tenantId,
      {
        sessionId: ctx.session.id,
        query: args.query,
        // Room for the documents withheld as already cited.
        topK: Math.min(20, 5 + ctx.cited.size),
        ...(args.domain ? { domain: args.domain } : {}),
        ...(ctx.intent ? { intent: ctx.intent } : {}),
        // The agent may name the question's scenario (docs/spec/evaluation.md §2); else the routed intent's profile.
        ...(args.scenario
          ? { confidenceProfile: args.scenario }
          : isConfidenceProfile(ctx.confidenceProfile)
            ? { confidenceProfile: ctx.confidenceProfile }
            : {}),
        ...(ctx.filter ? { filter: ctx.filter } : {}),
      },
      // Without a filter in the chat request, the tenant's default filter applies (docs/retrieval.md "Metadata filters").
      { tenantDefaultFilter: true, ...(fresh ? { freshSession: fresh } : {}) },
    );
    const record = recordLookup(ctx, args, result, Math.round(performance.now() - started));
    ctx.observer?.lookup?.(lookupEvent(args, result, record));
    return record;
  }

  private async offlineKnowledge(ctx: TurnContext, priorSteps: number, priorToolCalls: number): Promise<TurnOutcome> {
    // A resolved follow-up searches its `search` (docs/chat-clients.md "Conversations that remember"). The carried domain is
    // not a filter: restricting the lookup to it lost hit@5 on the labelled follow-ups (bench/chat/followups/README.md).
    const record = await this.runLookup(ctx, { query: ctx.search ?? ctx.message });
    return answerFromLookups(ctx, [record], null, priorSteps + 1, priorToolCalls + 1);
  }

  private async llmKnowledge(ctx: TurnContext): Promise<TurnOutcome> {
    const records: LookupRecord[] = [];
    const token = ctx.observer?.token;
    const agent = await this.agent.run(ctx, {
      lookup: async (args) => {
        const record = await this.runLookup(ctx, args);
        records.push(record);
        return record;
      },
      // A streamed turn relays the model's answer as it comes when the policy will keep it (chat-stream.ts `AnswerRelay`).
      ...(token ? { token: (step: number, text: string) => token(step, text, () => answerPreamble(ctx.lang, records)) } : {}),
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
    });
    // A disconnect ends the run like the deadline; it must not fall back to the offline answer.
    throwIfDisconnected(ctx);
    if (agent.ok && agent.answer !== null) {
      if (!agent.lookups.length) {
        // The model answered without consulting the knowledge base: not grounded, so not trusted.
        ctx.trace.fallback = { reason: 'no_lookup' };
        ctx.trace.events.push('fallback-triggered');
        return this.offlineKnowledge(ctx, agent.stepCount, agent.toolCallCount);
      }
      return answerFromLookups(ctx, agent.lookups, agent.answer, agent.stepCount, agent.toolCallCount);
    }
    // LLM failure or timeout → the offline answer; reuse what the agent already looked up (the
    // action memory would withhold those documents from a new lookup).
    ctx.trace.fallback = { reason: agent.errorCode ?? 'llm_failed', ...(agent.error ? { error: agent.error } : {}) };
    ctx.trace.events.push('fallback-triggered');
    this.logger.warn({ msg: 'chat agent fell back to the offline answer', sessionId: ctx.session.id, reason: ctx.trace.fallback.reason, error: agent.error });
    if (agent.lookups.some((l) => l.items.length > 0 || l.withheld.length > 0))
      return answerFromLookups(ctx, agent.lookups, null, agent.stepCount, agent.toolCallCount);
    return this.offlineKnowledge(ctx, agent.stepCount, agent.toolCallCount);
  }
}

/** The streamed turn's client went away: stop here (the session is closed FAILED `client_disconnected`). */
function throwIfDisconnected(ctx: TurnContext): void {
  if (ctx.observer?.signal?.aborted) throw new ClientDisconnectedError();
}
