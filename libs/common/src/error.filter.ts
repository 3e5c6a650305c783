import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_CODE,
  isDatabaseUnavailable,
  CONFLICT_RETRY_AFTER_SECONDS,
  DATABASE_CONFLICT_CODE,
  isTransientConflict,
  isStorageFull,
  STORAGE_FULL_CODE,
  STORAGE_RETRY_AFTER_SECONDS,
} from './database-errors.js';
import { noteStorageFull } from './storage-pressure.js';
import { DomainException } from './domain.exception.js';
import { type ErrorBody, reasonPhrase } from './error-body.js';
import { isOpenAiCompatibleRoute, toOpenAiErrorBody } from './openai-error.js';

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
}

/** Maps every error to `{statusCode, error, message, details?, requestId}`; 5xx get an errorId in the log. */
@Catch()
export class GlobalErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<FastifyReply>();
    const request = ctx.getRequest<FastifyRequest>();
    const body = toErrorBody(exception, String(request?.id ?? randomUUID()));
    if (body.statusCode >= 500) {
      this.logger.error({ msg: 'request failed', statusCode: body.statusCode, url: request?.url, errorId: body.requestId, err: describe(exception) });
    }
    // Every 503 here is transient (the database, an upstream): tell clients when to retry.
    if (body.statusCode === 503)
      void reply.header('retry-after', String(body.code === DATABASE_CONFLICT_CODE ? CONFLICT_RETRY_AFTER_SECONDS : DATABASE_RETRY_AFTER_SECONDS));
    if (body.code === STORAGE_FULL_CODE) {
      noteStorageFull(); // `/health` reports `degraded` while these keep coming
      void reply.header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS));
    }
    // The OpenAI-compatible routes answer in OpenAI's error shape, which its SDKs parse (docs/chat-clients.md).
    const payload = request?.url !== undefined && isOpenAiCompatibleRoute(request.url) ? toOpenAiErrorBody(body) : body;
    void reply.status(body.statusCode).header('content-type', 'application/json; charset=utf-8').header('x-request-id', body.requestId).send(payload);
  }
}

/** The client-safe body for any error: internal detail (driver text, upstream bodies) never goes in it. */
export function toErrorBody(exception: unknown, requestId: string): ErrorBody {
  if (exception instanceof DomainException) {
    return {
      statusCode: exception.status,
      error: reasonPhrase(exception.status),
      message: exception.message,
      code: exception.code,
      details: exception.details,
      requestId,
    };
  }
  const framework = frameworkError(exception);
  if (framework) {
    return { statusCode: framework.status, error: reasonPhrase(framework.status), message: framework.message, code: framework.code, requestId };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    let details: unknown;
    let code: string | undefined;
    if (typeof response === 'object' && response !== null) {
      const r = response as { message?: unknown; details?: unknown; code?: unknown };
      if (typeof r.message === 'string') message = r.message;
      else if (Array.isArray(r.message)) message = r.message.join('; ');
      details = r.details;
      if (typeof r.code === 'string') code = r.code;
    }
    const notFound = status === 404 ? /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (.*)$/s.exec(message) : null;
    if (notFound) message = `Route not found: ${notFound[1]} ${clip(notFound[2].split('?')[0])}`;
    return {
      statusCode: status,
      error: reasonPhrase(status),
      message,
      ...(code !== undefined ? { code } : {}),
      ...(details !== undefined ? { details } : {}),
      requestId,
    };
  }
  // A full disk refuses writes until an operator frees space: not the request's fault (no 4xx), not a bug (no 500).
  if (isStorageFull(exception)) {
    return {
      statusCode: 507,
      error: reasonPhrase(507),
      message: 'Storage full: the database cannot store more data until space is freed',
      code: STORAGE_FULL_CODE,
      requestId,
    };
  }
  if (isDatabaseUnavailable(exception)) {
    return { statusCode: 503, error: reasonPhrase(503), message: 'Database unavailable, retry shortly', code: DATABASE_UNAVAILABLE_CODE, requestId };
  }
  if (isTransientConflict(exception)) {
    return {
      statusCode: 503,
      error: reasonPhrase(503),
      message: 'Conflict with concurrent work, nothing was written: retry',
      code: DATABASE_CONFLICT_CODE,
      requestId,
    };
  }
  return { statusCode: 500, error: reasonPhrase(500), message: 'Internal server error', requestId };
}

/** Client-safe messages for Fastify's own 4xx errors (their texts can quote the URL or body). */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is larger than the allowed limit',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type: send application/json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Malformed JSON body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Empty body: content-type is application/json but no JSON was sent',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Request body size did not match Content-Length',
  FST_ERR_MAX_PARAM_LENGTH: 'URI too long: a path parameter exceeds the allowed length',
  FST_ERR_BAD_URL: 'Malformed URL',
};

/**
 * A Fastify 4xx error (raw, or wrapped by Nest's adapter as an HttpException with the Fastify error
 * as cause): its status with a fixed message, never the framework's text (which may echo input).
 */
function frameworkError(exception: unknown): { status: number; message: string; code?: string } | null {
  const candidates = [exception, exception instanceof Error ? exception.cause : undefined];
  for (const candidate of candidates) {
    const e = candidate as FastifyLikeError | undefined;
    if (!e || typeof e !== 'object' || typeof e.code !== 'string' || !e.code.startsWith('FST_')) continue;
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (status < 400 || status >= 500) return null;
    return { status, message: FRAMEWORK_MESSAGES[e.code] ?? reasonPhrase(status), code: e.code };
  }
  // A body parser error without a Fastify code (e.g. a custom parser's SyntaxError).
  const raw = exception as FastifyLikeError;
  if (!(exception instanceof HttpException) && typeof raw?.statusCode === 'number' && raw.statusCode >= 400 && raw.statusCode < 500) {
    return { status: raw.statusCode, message: raw.statusCode === 400 ? 'Malformed request' : reasonPhrase(raw.statusCode) };
  }
  return null;
}

/** Long client input (a path) cut for an error message. */
function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function describe(exception: unknown): unknown {
  return exception instanceof Error ? { name: exception.name, message: exception.message, stack: exception.stack } : exception;
}
