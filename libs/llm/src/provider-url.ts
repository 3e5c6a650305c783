import { LlmErrorCode, LlmException } from './llm.exception.js';

export type RemoteProvider = 'openai' | 'ollama';

const OLLAMA_DEFAULT = 'http://127.0.0.1:11434/v1';

/**
 * Base URL for an OpenAI-compatible client. Ollama serves that API under `/v1`, which is appended
 * when the configured URL lacks it. `openai` with no URL means api.openai.com (the client default).
 */
export function resolveBaseUrl(provider: RemoteProvider, baseUrl: string | undefined): string | undefined {
  if (provider === 'ollama') {
    const url = (baseUrl ?? OLLAMA_DEFAULT).replace(/\/+$/, '');
    return /\/v1$/.test(url) ? url : `${url}/v1`;
  }
  return baseUrl?.replace(/\/+$/, '');
}

/**
 * The API key to send. Self-hosted OpenAI-compatible servers (vLLM, Ollama) ignore it, but the
 * client refuses an empty one; api.openai.com itself needs a real key.
 */
export function resolveApiKey(provider: RemoteProvider, baseUrl: string | undefined, apiKey: string | undefined, what: 'LLM' | 'EMBEDDING'): string {
  if (apiKey) return apiKey;
  if (provider === 'openai' && !baseUrl) {
    throw new LlmException(LlmErrorCode.LLM_MISCONFIGURED, `${what}_PROVIDER=openai without ${what}_BASE_URL targets api.openai.com and needs ${what}_API_KEY`);
  }
  return provider === 'ollama' ? 'ollama' : 'not-needed';
}
