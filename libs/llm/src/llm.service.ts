import { Injectable, Logger, Optional } from '@nestjs/common';
import { MetricsService } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { LlmErrorCode, LlmException } from './llm.exception.js';
import { resolveApiKey, resolveBaseUrl } from './provider-url.js';

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface LlmCallResult {
  /** The text of the reply (text parts joined when the provider returns content blocks). */
  content: string;
  /** The full langchain message (tool calls, response metadata). */
  message: AIMessage | AIMessageChunk;
  /** From `usage_metadata`; null when the server reported none. */
  usage: LlmUsage | null;
  durationMs: number;
  model: string;
}

export interface LlmCallOptions {
  /** Deadline of this call (default LLM_TIMEOUT_MS); expiry → `LlmException(LLM_TIMEOUT)`. */
  timeoutMs?: number;
  /** Caller's cancellation (e.g. the request closed); abort → `LlmException(LLM_ABORTED)`. */
  signal?: AbortSignal;
  /** Bounded metrics label naming the use, e.g. `intent_judge`, `self_evaluation`, `chat`. */
  purpose?: string;
  /** A model to use instead of the default `chatModel()` (e.g. one with tools bound). */
  model?: { invoke(input: BaseLanguageModelInput, options?: { signal?: AbortSignal }): Promise<AIMessage | AIMessageChunk> };
}

/** A model whose reply can be streamed (a `ChatOpenAI`, with or without tools bound). */
export interface StreamingModel {
  stream(input: BaseLanguageModelInput, options?: { signal?: AbortSignal }): Promise<AsyncIterable<AIMessageChunk>>;
}

export interface LlmStreamOptions extends Omit<LlmCallOptions, 'model'> {
  /** Each piece of the reply's text, in order, as it arrives. */
  onText(text: string): void;
  model?: StreamingModel;
}

export interface ChatModelOptions {
  timeoutMs?: number;
  temperature?: number;
  maxTokens?: number;
}

/** Text of a langchain message content (string, or content blocks whose text parts are joined). */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (typeof part === 'string') return part;
        if (part && typeof part === 'object' && 'text' in part && typeof (part as { text: unknown }).text === 'string') return (part as { text: string }).text;
        return '';
      })
      .join('');
  }
  return '';
}

/**
 * The configured chat LLM (langchain `ChatOpenAI` against any OpenAI-compatible server, or Ollama's
 * `/v1`). `enabled` is false with `LLM_PROVIDER=none`; callers then take their non-LLM path.
 */
@Injectable()
export class LlmService {
  readonly enabled: boolean;
  readonly provider: AppConfig['llm']['provider'];
  /** The configured model, or null when no LLM is configured. */
  readonly modelName: string | null;
  readonly timeoutMs: number;
  private readonly baseURL?: string;
  private readonly apiKey?: string;
  private defaultModel?: ChatOpenAI;
  private readonly logger = new Logger('LlmService');
  private readonly calls?: ReturnType<MetricsService['counter']>;
  private readonly tokens?: ReturnType<MetricsService['counter']>;
  private readonly duration?: ReturnType<MetricsService['histogram']>;

  constructor(config: AppConfig, @Optional() metrics?: MetricsService) {
    const llm = config.llm;
    this.provider = llm.provider;
    this.enabled = llm.enabled;
    this.timeoutMs = llm.timeoutMs;
    this.modelName = llm.enabled ? llm.model : null;
    if (llm.provider !== 'none') {
      this.baseURL = resolveBaseUrl(llm.provider, llm.baseUrl);
      // Fails the boot with a clear message when api.openai.com is targeted without a key.
      this.apiKey = resolveApiKey(llm.provider, this.baseURL, llm.apiKey, 'LLM');
    }
    if (metrics) {
      this.calls = metrics.counter('arbiter_llm_calls_total', 'LLM calls by purpose and outcome', ['purpose', 'outcome']);
      this.tokens = metrics.counter('arbiter_llm_tokens_total', 'LLM tokens by purpose and kind (input|output)', ['purpose', 'kind']);
      this.duration = metrics.histogram('arbiter_llm_call_duration_seconds', 'LLM call latency', ['purpose'], [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 60]);
    }
  }

  /**
   * A langchain `ChatOpenAI` for the configured server (`maxRetries: 0`: callers own retries and
   * fallbacks). Without options the shared default instance is returned. Throws `LLM_DISABLED`.
   */
  chatModel(options: ChatModelOptions = {}): ChatOpenAI {
    if (!this.enabled || !this.modelName) throw new LlmException(LlmErrorCode.LLM_DISABLED);
    const custom = options.timeoutMs !== undefined || options.temperature !== undefined || options.maxTokens !== undefined;
    if (!custom && this.defaultModel) return this.defaultModel;
    const model = new ChatOpenAI({
      model: this.modelName,
      apiKey: this.apiKey,
      configuration: this.baseURL ? { baseURL: this.baseURL } : {},
      maxRetries: 0,
      timeout: options.timeoutMs ?? this.timeoutMs,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    });
    if (!custom) this.defaultModel = model;
    return model;
  }

  /**
   * One call with a deadline and optional cancellation. Resolves to the reply text, the message and
   * token usage; rejects with `LlmException` (`LLM_DISABLED`, `LLM_TIMEOUT`, `LLM_ABORTED`,
   * `LLM_CALL_FAILED`) so callers can fall back on a typed code.
   */
  async invoke(input: BaseLanguageModelInput, options: LlmCallOptions = {}): Promise<LlmCallResult> {
    const model = options.model ?? this.chatModel();
    return this.call(options, (signal) => model.invoke(input, { signal }));
  }

  /**
   * `invoke`, streamed: `onText` hears each piece of the reply's text as the server sends it (docs/chat-clients.md
   * "Streaming"); resolves to the whole message (tool calls merged from their chunks) like `invoke`. The caller's
   * abort closes the connection, so the server stops generating.
   */
  async stream(input: BaseLanguageModelInput, options: LlmStreamOptions): Promise<LlmCallResult> {
    const model = options.model ?? this.chatModel();
    return this.call(options, async (signal) => {
      let message: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(input, { signal })) {
        message = message ? message.concat(chunk) : chunk;
        const text = messageText(chunk.content);
        if (text) options.onText(text);
      }
      if (!message) throw new LlmException(LlmErrorCode.LLM_CALL_FAILED, 'the model streamed no message');
      return message;
    });
  }

  /** One call under the deadline and the caller's signal, counted in the metrics, its errors mapped to `LlmException`. */
  private async call(
    options: Pick<LlmCallOptions, 'purpose' | 'timeoutMs' | 'signal'>,
    run: (signal: AbortSignal) => Promise<AIMessage | AIMessageChunk>,
  ): Promise<LlmCallResult> {
    const purpose = options.purpose ?? 'other';
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    const started = performance.now();
    let outcome = 'ok';
    try {
      if (options.signal?.aborted) throw new LlmException(LlmErrorCode.LLM_ABORTED);
      const message = await run(signal);
      const usage = message.usage_metadata
        ? {
            inputTokens: message.usage_metadata.input_tokens,
            outputTokens: message.usage_metadata.output_tokens,
            totalTokens: message.usage_metadata.total_tokens,
          }
        : null;
      if (usage) {
        this.tokens?.inc({ purpose, kind: 'input' }, usage.inputTokens);
        this.tokens?.inc({ purpose, kind: 'output' }, usage.outputTokens);
      }
      return { content: messageText(message.content), message, usage, durationMs: performance.now() - started, model: this.modelName ?? 'unknown' };
    } catch (error) {
      const mapped = this.mapError(error, deadline, options.signal, timeoutMs, performance.now() - started);
      outcome = mapped.code === LlmErrorCode.LLM_TIMEOUT ? 'timeout' : mapped.code === LlmErrorCode.LLM_ABORTED ? 'aborted' : 'error';
      if (mapped.code === LlmErrorCode.LLM_CALL_FAILED) this.logger.warn({ msg: 'LLM call failed', purpose, error: mapped.message });
      throw mapped;
    } finally {
      this.calls?.inc({ purpose, outcome });
      this.duration?.observe({ purpose }, (performance.now() - started) / 1000);
    }
  }

  private mapError(error: unknown, deadline: AbortSignal, caller: AbortSignal | undefined, timeoutMs: number, elapsedMs: number): LlmException {
    if (error instanceof LlmException) return error;
    const message = error instanceof Error ? error.message : String(error);
    const name = error instanceof Error ? error.name : '';
    if (caller?.aborted && !deadline.aborted) return new LlmException(LlmErrorCode.LLM_ABORTED, undefined, undefined, { cause: error });
    if (deadline.aborted || /timeout|timed out/i.test(name) || /timed out|timeout/i.test(message)) {
      return new LlmException(LlmErrorCode.LLM_TIMEOUT, `no answer within ${timeoutMs} ms`, { timeoutMs, elapsedMs: Math.round(elapsedMs) }, { cause: error });
    }
    return new LlmException(LlmErrorCode.LLM_CALL_FAILED, message, undefined, { cause: error });
  }
}
