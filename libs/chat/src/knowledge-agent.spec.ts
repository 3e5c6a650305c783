import { describe, expect, it } from '@jest/globals';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { runKnowledgeAgent, type AgentDeps, type LookupToolArgs } from './knowledge-agent.js';

type Reply = AIMessage | Error;

function harness(replies: Reply[]) {
  const calls: { messages: BaseMessage[]; allowTools: boolean }[] = [];
  const lookups: LookupToolArgs[] = [];
  const rejected: string[] = [];
  const deps: AgentDeps<string> = {
    callModel: async (messages, allowTools) => {
      calls.push({ messages: [...messages], allowTools });
      const next = replies.shift() ?? new AIMessage('done');
      if (next instanceof Error) throw next;
      return next;
    },
    lookup: async (args) => {
      lookups.push(args);
      return { content: JSON.stringify({ results: [args.query] }), lookup: `L:${args.query}` };
    },
    rejectToolCall: async (_name, _args, error) => {
      rejected.push(error);
    },
  };
  return { deps, calls, lookups, rejected };
}

const toolCall = (query: unknown, name = 'lookup_knowledge', id = `c-${String(query)}`) =>
  new AIMessage({ content: '', tool_calls: [{ id, name, args: { query }, type: 'tool_call' }] });

describe('runKnowledgeAgent', () => {
  it('executes tool calls step by step and returns the final answer', async () => {
    const h = harness([
      toolCall('E201'),
      toolCall('E202'),
      new AIMessage({ content: 'answer', usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } }),
    ]);
    const r = await runKnowledgeAgent({ systemPrompt: 'sys', message: 'q', maxSteps: 4, toolName: 'lookup_knowledge', deps: h.deps });
    expect(r).toMatchObject({ ok: true, answer: 'answer', stepCount: 3, toolCallCount: 2, lookups: ['L:E201', 'L:E202'], totalTokens: 5 });
    expect(h.calls.map((c) => c.allowTools)).toEqual([true, true, true]);
    // The third call sees system, user, then (AI tool call, tool result) twice.
    expect(h.calls[2]!.messages.map((m) => m.getType())).toEqual(['system', 'human', 'ai', 'tool', 'ai', 'tool']);
  });

  it('puts the conversation history between the system prompt and the question', async () => {
    const h = harness([new AIMessage('answer')]);
    const history = [
      { role: 'user' as const, content: 'my arm shows E201' },
      { role: 'assistant' as const, content: 'power it off first' },
    ];
    await runKnowledgeAgent({ systemPrompt: 'sys', message: 'then what?', history, maxSteps: 2, toolName: 'lookup_knowledge', deps: h.deps });
    expect(h.calls[0]!.messages.map((m) => [m.getType(), m.content])).toEqual([
      ['system', 'sys'],
      ['human', 'my arm shows E201'],
      ['ai', 'power it off first'],
      ['human', 'then what?'],
    ]);
  });

  it('makes the last allowed step without tools, so the run always ends', async () => {
    const h = harness([toolCall('a'), toolCall('b'), new AIMessage('final')]);
    const r = await runKnowledgeAgent({ systemPrompt: 's', message: 'q', maxSteps: 2, toolName: 'lookup_knowledge', deps: h.deps });
    expect(h.calls.map((c) => c.allowTools)).toEqual([true, false]);
    // The tool call in the last (tool-less) reply is ignored: the reply's text is the answer.
    expect(r).toMatchObject({ ok: false, stepCount: 2, toolCallCount: 1, errorCode: 'EMPTY_ANSWER' });
  });

  it('rejects unknown tools and invalid arguments, and tells the model', async () => {
    const h = harness([toolCall('x', 'delete_everything'), toolCall(''), toolCall('ok'), new AIMessage('fine')]);
    const r = await runKnowledgeAgent({ systemPrompt: 's', message: 'q', maxSteps: 5, toolName: 'lookup_knowledge', deps: h.deps });
    expect(r).toMatchObject({ ok: true, toolCallCount: 3, lookups: ['L:ok'] });
    expect(h.rejected).toEqual([expect.stringMatching(/unknown tool "delete_everything"/), expect.stringMatching(/invalid arguments: query/)]);
    expect(r.steps.map((s) => s.toolCalls.map((c) => c.ok))).toEqual([[false], [false], [true], []]);
  });

  it('reports a model failure with what was gathered, without throwing', async () => {
    const timeout = Object.assign(new Error('no answer within 100 ms'), { code: 'LLM_TIMEOUT' });
    const h = harness([toolCall('E201'), timeout]);
    const r = await runKnowledgeAgent({ systemPrompt: 's', message: 'q', maxSteps: 4, toolName: 'lookup_knowledge', deps: h.deps });
    expect(r).toMatchObject({
      ok: false,
      answer: null,
      stepCount: 2,
      toolCallCount: 1,
      lookups: ['L:E201'],
      errorCode: 'LLM_TIMEOUT',
      error: 'no answer within 100 ms',
    });
  });
});

describe('runKnowledgeAgent with a deadline', () => {
  it('hands the signal to the model and stops with CHAT_DEADLINE when it fires mid-call', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const h = harness([]);
    h.deps.callModel = (_messages, _allowTools, signal) => {
      seen = signal;
      controller.abort();
      return Promise.reject(new Error('aborted'));
    };
    const r = await runKnowledgeAgent({
      systemPrompt: 'sys',
      message: 'q',
      maxSteps: 4,
      toolName: 'lookup_knowledge',
      deps: h.deps,
      signal: controller.signal,
    });
    expect(seen).toBe(controller.signal);
    expect(r).toMatchObject({ ok: false, stepCount: 1, errorCode: 'CHAT_DEADLINE' });
  });

  it('starts no further tool call or step once the deadline passed, keeping the lookups made so far', async () => {
    const controller = new AbortController();
    const h = harness([
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'a', name: 'lookup_knowledge', args: { query: 'E201' }, type: 'tool_call' },
          { id: 'b', name: 'lookup_knowledge', args: { query: 'E202' }, type: 'tool_call' },
        ],
      }),
    ]);
    const lookup = h.deps.lookup;
    h.deps.lookup = async (args, id) => {
      controller.abort();
      return lookup(args, id);
    };
    const r = await runKnowledgeAgent({
      systemPrompt: 'sys',
      message: 'q',
      maxSteps: 4,
      toolName: 'lookup_knowledge',
      deps: h.deps,
      signal: controller.signal,
    });
    expect(r).toMatchObject({ ok: false, errorCode: 'CHAT_DEADLINE', lookups: ['L:E201'], toolCallCount: 1 });
    expect(h.calls).toHaveLength(1);
  });

  it('an already expired deadline makes no model call', async () => {
    const h = harness([]);
    const r = await runKnowledgeAgent({
      systemPrompt: 'sys',
      message: 'q',
      maxSteps: 4,
      toolName: 'lookup_knowledge',
      deps: h.deps,
      signal: AbortSignal.abort(),
    });
    expect(r).toMatchObject({ ok: false, stepCount: 0, errorCode: 'CHAT_DEADLINE' });
    expect(h.calls).toHaveLength(0);
  });
});
