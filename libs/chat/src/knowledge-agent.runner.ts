import { Injectable } from '@nestjs/common';
import type { AIMessage, AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import { AppConfig } from '@arbiter/config';
import { LlmService } from '@arbiter/llm';
import { LOOKUP_TOOL_NAME, loadExecutorPrompt } from '@arbiter/retrieval';
import type { ChatLanguage } from './chat-language.js';
import type { LookupRecord, TurnContext } from './chat-turn.js';
import { createLookupTool, runKnowledgeAgent, type AgentRunResult, type LookupToolArgs } from './knowledge-agent.js';

type ToolModel = {
  invoke(input: BaseMessage[], options?: { signal?: AbortSignal }): Promise<AIMessageChunk>;
  stream(input: BaseMessage[], options?: { signal?: AbortSignal }): Promise<AsyncIterable<AIMessageChunk>>;
};

/** What the agent's tools do in this turn (the orchestrator's lookup and its record of a refused call). */
export interface AgentTurnTools {
  lookup(args: LookupToolArgs): Promise<LookupRecord>;
  rejectToolCall(name: string, rawArgs: unknown, error: string): Promise<void>;
  /** A streamed turn: the model's text as it comes (`step`: the model call, from 1); the calls are then streamed. */
  token?(step: number, text: string): void;
}

/** Executor prompt (retrieval lib, versioned) plus the chat's output contract. */
function systemPrompt(lang: ChatLanguage): string {
  const contract =
    lang === 'zh'
      ? '\n\n## 输出要求\n用中文回答。只依据 lookup_knowledge 返回的资料作答，并在答案中用文档标题注明出处。'
      : '\n\n## Output\nAnswer in English. Answer only from what lookup_knowledge returned, and name the documents you used by title.';
  return loadExecutorPrompt() + contract;
}

/** The user's message, and the standalone question it was resolved to when that differs (docs/chat-clients.md "Conversations"). */
export function agentMessage(ctx: Pick<TurnContext, 'message' | 'trace'>): string {
  const followUp = ctx.trace.followUp;
  if (!followUp || followUp.query === followUp.message) return ctx.message;
  return `${followUp.message}\n\n(Standalone question: ${followUp.query})`;
}

/** What the model sees of a lookup: the graded signals and the chunks (content capped). */
export function toolPayload(rec: LookupRecord): string {
  const r = rec.result;
  return JSON.stringify({
    relevanceLevel: r.relevanceLevel,
    completenessHint: r.completenessHint,
    dedupReason: r.dedupReason,
    retrievedDomainsThisSession: r.retrievedDomainsThisSession,
    domain: r.domain,
    confidence: { score: r.confidence.score, level: r.confidence.level },
    ...(rec.withheld.length ? { alreadyCitedInConversation: rec.withheld.map((x) => ({ title: x.title, filePath: x.filePath })) } : {}),
    results: rec.items.map((x) => ({
      title: x.title,
      filePath: x.filePath,
      domain: x.domain,
      similarity: Math.round(x.similarity * 1000) / 1000,
      content: x.content.slice(0, 1500),
    })),
  });
}

/**
 * The LLM agent of the knowledge branch: the tool-calling loop of knowledge-agent.ts on the
 * configured chat model, under the turn's deadline. Records the run in the turn's trace (`agent`).
 */
@Injectable()
export class KnowledgeAgentRunner {
  private toolModels?: { auto: ToolModel; none: ToolModel };

  constructor(
    private readonly llm: LlmService,
    private readonly config: AppConfig,
  ) {}

  private models(): { auto: ToolModel; none: ToolModel } {
    if (!this.toolModels) {
      const tool = createLookupTool(LOOKUP_TOOL_NAME);
      const model = this.llm.chatModel();
      this.toolModels = { auto: model.bindTools([tool]), none: model.bindTools([tool], { tool_choice: 'none' }) };
    }
    return this.toolModels;
  }

  async run(ctx: TurnContext, tools: AgentTurnTools): Promise<AgentRunResult<LookupRecord>> {
    const models = this.models();
    let step = 0;
    const { token } = tools;
    const agent = await runKnowledgeAgent<LookupRecord>({
      systemPrompt: systemPrompt(ctx.lang),
      message: agentMessage(ctx),
      ...(ctx.modelHistory.length ? { history: ctx.modelHistory } : {}),
      maxSteps: this.config.chat.maxSteps,
      toolName: LOOKUP_TOOL_NAME,
      signal: ctx.deadline,
      deps: {
        callModel: async (messages, allowTools, signal) => {
          const options = { model: allowTools ? models.auto : models.none, purpose: 'chat', signal };
          const call = ++step;
          // Streamed turns stream the model too, so its answer reaches the client token by token (docs/chat-clients.md "Streaming").
          const result = token
            ? await this.llm.stream(messages, { ...options, onText: (text) => token(call, text) })
            : await this.llm.invoke(messages, options);
          return result.message as AIMessage | AIMessageChunk;
        },
        lookup: async (args) => {
          const record = await tools.lookup(args);
          return { content: toolPayload(record), lookup: record };
        },
        rejectToolCall: (name, rawArgs, error) => tools.rejectToolCall(name, rawArgs, error),
      },
    });
    ctx.trace.agent = {
      ok: agent.ok,
      stepCount: agent.stepCount,
      toolCallCount: agent.toolCallCount,
      totalTokens: agent.totalTokens,
      steps: agent.steps,
      ...(agent.error ? { error: agent.error } : {}),
      ...(agent.errorCode ? { errorCode: agent.errorCode } : {}),
    };
    return agent;
  }
}
