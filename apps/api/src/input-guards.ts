import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { announcesBody } from '@arbiter/tenancy';
import {
  findUnsafeInput,
  invalidRequest,
  isMultipartBody,
  reasonPhrase,
  toErrorBody,
  unsafeStringProblem,
  type ErrorBody,
  type FieldError,
} from '@arbiter/common';

function isJsonContentType(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/([a-z0-9.+-]*\+)?json\b/i.test(type.trim());
}

/**
 * What no route can take, whatever its DTO: NUL bytes or unpaired surrogates in any header, path
 * parameter, query parameter or body string (or key), non-finite numbers, JSON nested deeper than
 * `MAX_JSON_DEPTH`, and a JSON body that is not an object or array (`null`, `"text"`, `42`).
 */
export function inspectRequest(request: Pick<FastifyRequest, 'headers' | 'params' | 'query' | 'body'>, jsonBody: boolean): FieldError[] {
  return [...inspectRequestLine(request), ...inspectBody(request, jsonBody)];
}

/** Headers, path and query: checked before authentication, so a NUL in a header is a 400 whatever the key. */
function inspectRequestLine(request: Pick<FastifyRequest, 'headers' | 'params' | 'query'>): FieldError[] {
  const problems: FieldError[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    const values = Array.isArray(value) ? value : [value];
    const problem = values.map((v) => (typeof v === 'string' ? unsafeStringProblem(v) : null)).find((p) => p !== null);
    if (problem) problems.push({ field: `header ${name}`, errors: [problem] });
  }
  problems.push(...findUnsafeInput(request.params ?? {}), ...findUnsafeInput(request.query ?? {}));
  return problems;
}

function inspectBody(request: Pick<FastifyRequest, 'body'>, jsonBody: boolean): FieldError[] {
  const problems: FieldError[] = [];
  const body = request.body;
  if (body !== undefined) {
    if (body === null || (typeof body !== 'object' && (jsonBody || typeof body !== 'string'))) {
      problems.push({ field: 'body', errors: ['must be a JSON object'] });
    } else if (isMultipartBody(body)) {
      // An upload's file bytes are the file's business (docs/documents.md); its names and form fields are checked like JSON strings.
      problems.push(...findUnsafeInput({ fields: body.fields, fileNames: body.files.map((f) => f.fileName) }));
    } else {
      problems.push(...findUnsafeInput(body));
    }
  }
  return problems;
}

/**
 * Rejects unsafe input with a 400 (the validation error shape) before any DTO transformation runs: the
 * request line and headers on arrival (register before the authentication hook), the body once parsed.
 */
export function registerInputGuards(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const problems = inspectRequestLine(request);
    if (problems.length > 0 && announcesBody(request)) void reply.header('connection', 'close');
    done(problems.length > 0 ? invalidRequest(problems) : undefined);
  });
  fastify.addHook('preValidation', (request, _reply, done) => {
    const problems = inspectBody(request, isJsonContentType(request));
    done(problems.length > 0 ? invalidRequest(problems) : undefined);
  });
}

/**
 * Errors Node's HTTP parser raises before a request exists (a NUL or other invalid byte in a
 * header, oversized headers, a malformed request line) answered in the one error shape, with a
 * fresh request id and without quoting the input.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message = status === 408 ? 'Request timed out' : status === 431 ? 'Request headers are too large' : 'Malformed HTTP request';
  const requestId = randomUUID();
  const body: ErrorBody = { statusCode: status, error: reasonPhrase(status), message, code: error.code, requestId };
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/**
 * Errors Fastify's router raises before any hook or handler runs (an over-long path parameter → 414,
 * a malformed URL → 400): the one error shape with the request id, never the URL.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const body = toErrorBody(error, String(request.id));
  void reply.code(body.statusCode).header('content-type', 'application/json; charset=utf-8').header('x-request-id', body.requestId).send(body);
}
