import { describe, expect, it } from '@jest/globals';
import { isOpenAiCompatibleRoute, openAiErrorType, toOpenAiErrorBody } from './openai-error.js';

describe('OpenAI error shape', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'invalid_request_error'],
    [415, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'server_error'],
    [503, 'server_error'],
  ])('status %d → type %s', (status, type) => {
    expect(openAiErrorType(status)).toBe(type);
  });

  it('keeps the message, the code, the first offending field as param and the request id', () => {
    expect(
      toOpenAiErrorBody({
        statusCode: 400,
        error: 'Bad Request',
        message: 'Invalid request: messages[3].role: must be one of system, developer, user, assistant',
        details: { fields: ['messages[3].role'] },
        requestId: 'r1',
      }),
    ).toEqual({
      error: {
        message: 'Invalid request: messages[3].role: must be one of system, developer, user, assistant',
        type: 'invalid_request_error',
        code: null,
        param: 'messages[3].role',
        requestId: 'r1',
      },
    });
    expect(toOpenAiErrorBody({ statusCode: 401, error: 'Unauthorized', message: 'Invalid API key', code: 'AUTH_INVALID_API_KEY', requestId: 'r2' })).toEqual({
      error: { message: 'Invalid API key', type: 'authentication_error', code: 'AUTH_INVALID_API_KEY', param: null, requestId: 'r2' },
    });
  });

  it.each([
    ['/v1/chat/completions', true],
    ['/v1', true],
    ['/v1?a=b', true],
    ['/v10', false],
    ['/ai/chat', false],
    ['/api/v1', false],
  ])('%s is an OpenAI-compatible route: %s', (url, expected) => {
    expect(isOpenAiCompatibleRoute(url)).toBe(expected);
  });
});
