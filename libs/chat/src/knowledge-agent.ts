/**
 * The LLM path of the chat: a langchain tool-calling loop with one tool, `lookup_knowledge`, under the
 * retrieval executor prompt. No Nest, no database: the caller supplies the model call and the lookup.
 *
 * A step is one model call. Steps 1..maxSteps-1 may call tools; the last step is made with
 * `tool_choice: "none"` so the run always ends with an answer within `maxSteps` model calls.
 * Every tool call is executed (and recorded by the caller) in the order the model asked for them.
 * Model failures do not throw: the result says `ok: false` and keeps what was gathered so far, so
 * the caller can fall back to an offline answer without searching again (the action memory would
 * withhold the documents already returned).
 *
 * `signal` is the turn's overall deadline: it is handed to every model call, and once it fires no
 * further step or tool call starts; the result is `ok: false` with `errorCode: "CHAT_DEADLINE"`.
 *
 * Built on `@langchain/core` (messages, tools, `bindTools`) rather than the `langchain` package's
 * `createAgent` (a LangGraph graph), which was measured against the same fake OpenAI server, two model
 * calls and one tool call per turn, 40 turns after a warm-up, two runs on a shared machine: 6–22 ms per
 * turn here vs 18–62 ms with `createAgent` (2–4× in every round), the same two model requests, and
 * 450–730 ms to import `langchain`; and it has no per-step `tool_choice: "none"` for the last step.
 * So `langchain` (with LangGraph, ~19 MB installed) is not a dependency.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import { CONFIDENCE_PROFILES } from '@arbiter/retrieval';

export const LOOKUP_TOOL_DESCRIPTION =
  'Search the support knowledge base (fault codes, controller connection, teach pendant, firmware, orders and refunds). ' +
  'Returns graded results with relevanceLevel, completenessHint, dedupReason and retrievedDomainsThisSession; obey the retrieval constraints.';

export const lookupToolSchema = z.object({
  query: z.string().trim().min(1).max(4000).describe('What to look up, in the user language'),
  domain: z.string().trim().min(1).max(100).optional().describe('Restrict the search to one knowledge domain'),
  scenario: z
    .enum(CONFIDENCE_PROFILES)
    .optional()
    .describe(
      'What kind of question this is: impact (what else is affected), dependency, search, documentation, reference, complexity, overview or refactor; scores how well the results fit it',
    ),
});
export type LookupToolArgs = z.infer<typeof lookupToolSchema>;

/** The tool as langchain sees it (bound to the model); execution goes through `AgentDeps.lookup`. */
export function createLookupTool(name: string): StructuredToolInterface {
  return tool(async () => '', { name, description: LOOKUP_TOOL_DESCRIPTION, schema: lookupToolSchema });
}

export interface AgentToolOutcome<L> {
  /** JSON (or an error text) returned to the model. */
  content: string;
  /** The caller's lookup record (e.g. the LookupResult), absent when the call failed. */
  lookup?: L;
  error?: string;
}

export interface AgentDeps<L> {
  /** One model call; `allowTools: false` on the last step. Rejects on failure/timeout or when `signal` fires. */
  callModel(messages: BaseMessage[], allowTools: boolean, signal?: AbortSignal): Promise<AIMessage | AIMessageChunk>;
  /** Executes one valid tool call. */
  lookup(args: LookupToolArgs, callId: string): Promise<AgentToolOutcome<L>>;
  /** Records a tool call the agent could not execute (bad arguments, unknown tool). */
  rejectToolCall(name: string, rawArgs: unknown, error: string): Promise<void>;
}

export interface AgentStepTrace {
  step: number;
  toolCalls: { name: string; args: unknown; ok: boolean; error?: string }[];
  tokens?: number;
  final: boolean;
}

export interface AgentRunResult<L> {
  ok: boolean;
  answer: string | null;
  /** Model calls made. */
  stepCount: number;
  /** Tool calls executed or rejected. */
  toolCallCount: number;
  lookups: L[];
  steps: AgentStepTrace[];
  totalTokens: number;
  error?: string;
  /** Error class of a failed model call (e.g. LLM_TIMEOUT). */
  errorCode?: string;
}

export interface AgentRunOptions<L> {
  systemPrompt: string;
  message: string;
  /** Earlier messages of the conversation, between the system prompt and the message (docs/chat-clients.md). */
  history?: readonly { role: 'user' | 'assistant'; content: string }[];
  maxSteps: number;
  toolName: string;
  deps: AgentDeps<L>;
  /** The turn's deadline across every model call and tool (see the file comment). */
  signal?: AbortSignal;
}

export const DEADLINE_ERROR_CODE = 'CHAT_DEADLINE';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p: unknown) => (typeof p === 'string' ? p : p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : ''))
      .join('');
  return '';
}

export async function runKnowledgeAgent<L>(options: AgentRunOptions<L>): Promise<AgentRunResult<L>> {
  const { deps, toolName } = options;
  const maxSteps = Math.max(1, Math.floor(options.maxSteps));
  const history = (options.history ?? []).map((m) => (m.role === 'user' ? new HumanMessage(m.content) : new AIMessage(m.content)));
  const messages: BaseMessage[] = [new SystemMessage(options.systemPrompt), ...history, new HumanMessage(options.message)];
  const result: AgentRunResult<L> = { ok: false, answer: null, stepCount: 0, toolCallCount: 0, lookups: [], steps: [], totalTokens: 0 };

  const { signal } = options;
  const deadlineReached = (): AgentRunResult<L> => {
    result.error = 'the chat turn ran out of time (CHAT_TIMEOUT_MS)';
    result.errorCode = DEADLINE_ERROR_CODE;
    return result;
  };

  for (let step = 1; step <= maxSteps; step++) {
    if (signal?.aborted) return deadlineReached();
    const allowTools = step < maxSteps;
    let ai: AIMessage | AIMessageChunk;
    try {
      ai = await deps.callModel(messages, allowTools, signal);
    } catch (error) {
      result.stepCount = step;
      if (signal?.aborted) return deadlineReached();
      result.error = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string') result.errorCode = code;
      return result;
    }
    result.stepCount = step;
    const tokens = ai.usage_metadata?.total_tokens;
    if (tokens) result.totalTokens += tokens;
    const calls = allowTools ? (ai.tool_calls ?? []) : [];
    const trace: AgentStepTrace = { step, toolCalls: [], final: calls.length === 0, ...(tokens ? { tokens } : {}) };
    result.steps.push(trace);
    if (!calls.length) {
      const answer = textOf(ai.content).trim();
      if (!answer) {
        result.error = 'the model returned an empty answer';
        result.errorCode = 'EMPTY_ANSWER';
        return result;
      }
      result.ok = true;
      result.answer = answer;
      return result;
    }
    messages.push(ai);
    for (const [index, call] of calls.entries()) {
      if (signal?.aborted) return deadlineReached();
      const callId = call.id ?? `call_${step}_${index}`;
      result.toolCallCount++;
      if (call.name !== toolName) {
        const error = `unknown tool "${call.name}"; the only tool is ${toolName}`;
        await deps.rejectToolCall(call.name, call.args, error);
        trace.toolCalls.push({ name: call.name, args: call.args, ok: false, error });
        messages.push(new ToolMessage({ tool_call_id: callId, content: `Error: ${error}`, status: 'error' }));
        continue;
      }
      const parsed = lookupToolSchema.safeParse(call.args);
      if (!parsed.success) {
        const error = `invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'args'}: ${i.message}`).join('; ')}`;
        await deps.rejectToolCall(call.name, call.args, error);
        trace.toolCalls.push({ name: call.name, args: call.args, ok: false, error });
        messages.push(new ToolMessage({ tool_call_id: callId, content: `Error: ${error}`, status: 'error' }));
        continue;
      }
      const outcome = await deps.lookup(parsed.data, callId);
      if (outcome.lookup !== undefined) result.lookups.push(outcome.lookup);
      trace.toolCalls.push({ name: call.name, args: parsed.data, ok: !outcome.error, ...(outcome.error ? { error: outcome.error } : {}) });
      messages.push(new ToolMessage({ tool_call_id: callId, content: outcome.content, ...(outcome.error ? { status: 'error' as const } : {}) }));
    }
  }
  // Unreachable: the last step is made without tools and either answers or fails.
  result.error = 'step limit reached without an answer';
  result.errorCode = 'STEP_LIMIT';
  return result;
}
