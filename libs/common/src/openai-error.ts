import type { ErrorBody } from './error-body.js';

/** The OpenAI-compatible routes (`/v1/*`, docs/chat-clients.md): OpenAI's error shape, a tenant key as a Bearer token. */
export function isOpenAiCompatibleRoute(url: string): boolean {
  return /^\/v1(\/|\?|$)/.test(url);
}

/** OpenAI's error shape; `code` is Arbiter's error code, `param` the first offending field, `requestId` as on every error. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null; requestId: string };
}

/** OpenAI's `error.type` for a status (its SDKs pick the exception class from the status alone). */
export function openAiErrorType(status: number): string {
  if (status >= 500) return 'server_error';
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 409:
      return 'conflict_error';
    case 422:
      return 'unprocessable_entity_error';
    case 429:
      return 'rate_limit_error';
    default:
      return 'invalid_request_error';
  }
}

/** The one error shape (`ErrorBody`) in OpenAI's shape, for `/v1/*`. */
export function toOpenAiErrorBody(body: ErrorBody): OpenAiErrorBody {
  const fields = (body.details as { fields?: unknown } | undefined)?.fields;
  const param = Array.isArray(fields) && typeof fields[0] === 'string' ? fields[0] : null;
  return { error: { message: body.message, type: openAiErrorType(body.statusCode), code: body.code ?? null, param, requestId: body.requestId } };
}
