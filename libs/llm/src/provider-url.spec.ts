import { describe, expect, it } from '@jest/globals';
import { resolveApiKey, resolveBaseUrl } from './provider-url.js';

describe('resolveBaseUrl / resolveApiKey', () => {
  it.each([
    ['ollama', undefined, 'http://127.0.0.1:11434/v1'],
    ['ollama', 'http://gpu:11434', 'http://gpu:11434/v1'],
    ['ollama', 'http://gpu:11434/v1/', 'http://gpu:11434/v1'],
    ['openai', undefined, undefined],
    ['openai', 'http://vllm:8000/v1/', 'http://vllm:8000/v1'],
  ] as const)('%s %s → %s', (provider, url, expected) => {
    expect(resolveBaseUrl(provider, url)).toBe(expected);
  });

  it('needs a key only for api.openai.com', () => {
    expect(resolveApiKey('openai', 'http://vllm/v1', undefined, 'LLM')).toBe('not-needed');
    expect(resolveApiKey('ollama', 'http://x/v1', undefined, 'LLM')).toBe('ollama');
    expect(resolveApiKey('openai', undefined, 'sk-1', 'LLM')).toBe('sk-1');
    expect(() => resolveApiKey('openai', undefined, undefined, 'EMBEDDING')).toThrow(/EMBEDDING_API_KEY/);
  });
});
