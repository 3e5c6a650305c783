import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from './database-errors.js';
import { DomainException } from './domain.exception.js';
import { type ErrorBody, reasonPhrase } from './error-body.js';

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
    const body = this.toBody(exception, String(request?.id ?? randomUUID()));
    if (body.statusCode >= 500) {
      this.logger.error({ msg: 'request failed', statusCode: body.statusCode, url: request?.url, errorId: body.requestId, err: describe(exception) });
    }
    void reply.status(body.statusCode).header('content-type', 'application/json; charset=utf-8').send(body);
  }

  private toBody(exception: unknown, requestId: string): ErrorBody {
    if (exception instanceof DomainException) {
      return { statusCode: exception.status, error: reasonPhrase(exception.status), message: exception.message, code: exception.code, details: exception.details, requestId };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      let message = exception.message;
      let details: unknown;
      if (typeof response === 'object' && response !== null) {
        const r = response as { message?: unknown; details?: unknown };
        if (typeof r.message === 'string') message = r.message;
        else if (Array.isArray(r.message)) message = r.message.join('; ');
        details = r.details;
      }
      if (status === 404 && /^Cannot (GET|POST|PUT|PATCH|DELETE)/.test(message)) message = `Route not found: ${message.replace(/^Cannot /, '')}`;
      return { statusCode: status, error: reasonPhrase(status), message, ...(details !== undefined ? { details } : {}), requestId };
    }
    const fastifyError = exception as FastifyLikeError;
    if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
      const status = fastifyError.statusCode;
      let message = fastifyError.message ?? reasonPhrase(status);
      if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = 'Request body is larger than the allowed limit';
      else if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') message = 'Unsupported content type: send application/json';
      else if (status === 400 && /JSON/i.test(message)) message = `Malformed JSON body: ${message}`;
      return { statusCode: status, error: reasonPhrase(status), message, code: fastifyError.code, requestId };
    }
    if (isDatabaseUnavailable(exception)) {
      return { statusCode: 503, error: reasonPhrase(503), message: 'Database unavailable, retry shortly', requestId };
    }
    return { statusCode: 500, error: reasonPhrase(500), message: 'Internal server error', requestId };
  }
}

function describe(exception: unknown): unknown {
  return exception instanceof Error ? { name: exception.name, message: exception.message, stack: exception.stack } : exception;
}
