import { describe, expect, it } from '@jest/globals';
import { HttpException, NotFoundException, type ArgumentsHost } from '@nestjs/common';
import { GlobalErrorFilter } from './error.filter.js';
import { resetStoragePressure, storageFullSeenWithin } from './storage-pressure.js';
import type { ErrorBody } from './error-body.js';

/** Runs the filter on `exception` and returns what it sent. */
function render(exception: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const sent: { status: number; body?: ErrorBody; headers: Record<string, string> } = { status: 0, headers: {} };
  const reply = {
    status(code: number) {
      sent.status = code;
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    send(body: ErrorBody) {
      sent.body = body;
      return reply;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ id: 'req-1', url: '/x' }) }) } as unknown as ArgumentsHost;
  new GlobalErrorFilter().catch(exception, host);
  return { status: sent.status, body: sent.body as ErrorBody, headers: sent.headers };
}

function fastifyError(code: string, statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

describe('GlobalErrorFilter: framework errors are client-safe', () => {
  const longPath = `/admin/case-library/${'x'.repeat(5000)}`;
  const rows: [string, unknown, number, string][] = [
    [
      'over-long path parameter (raw)',
      fastifyError('FST_ERR_MAX_PARAM_LENGTH', 414, `'${longPath}' is exceeding the max param length`),
      414,
      'URI too long: a path parameter exceeds the allowed length',
    ],
    [
      'over-long path parameter (wrapped by the adapter)',
      new HttpException(`'${longPath}' is exceeding the max param length`, 414, { cause: fastifyError('FST_ERR_MAX_PARAM_LENGTH', 414, 'x') }),
      414,
      'URI too long: a path parameter exceeds the allowed length',
    ],
    ['malformed URL', fastifyError('FST_ERR_BAD_URL', 400, `'/%zz<script>' is not a valid url component`), 400, 'Malformed URL'],
    [
      'invalid JSON body',
      new HttpException('Body is not valid JSON but content-type is set to application/json', 400, {
        cause: fastifyError('FST_ERR_CTP_INVALID_JSON_BODY', 400, 'x'),
      }),
      400,
      'Malformed JSON body',
    ],
    ['unknown Fastify 4xx', fastifyError('FST_ERR_SOMETHING_NEW', 400, 'secret input echoed'), 400, 'Bad Request'],
    ['parser error without a code', Object.assign(new SyntaxError('Unexpected token s in JSON: "secret"'), { statusCode: 400 }), 400, 'Malformed request'],
  ];
  it.each(rows)('%s', (_name, exception, status, message) => {
    const { status: sent, body, headers } = render(exception);
    expect(sent).toBe(status);
    expect(body).toMatchObject({ statusCode: status, message, requestId: 'req-1' });
    expect(headers['x-request-id']).toBe('req-1');
    expect(JSON.stringify(body)).not.toMatch(/xxxxxxxxxx|secret|script/);
  });

  it('clips the path of a route-not-found message', () => {
    const { body } = render(new NotFoundException(`Cannot GET /${'y'.repeat(5000)}?token=abc`));
    expect(body.message.startsWith('Route not found: GET /yyyy')).toBe(true);
    expect(body.message.length).toBeLessThan(250);
    expect(body.message).not.toContain('token');
  });

  it('answers an unknown error with a generic 500 and no internal text', () => {
    const { status, body, headers } = render(new Error('connect ECONNREFUSED 10.0.0.7:5432 password authentication failed for user "arbiter"'));
    expect(status).toBe(503);
    expect(body.message).toBe('Database unavailable, retry shortly');
    expect(body.code).toBe('DATABASE_UNAVAILABLE');
    expect(headers['retry-after']).toBe('5');
    const other = render(new Error('invalid input syntax for type json at 10.0.0.7'));
    expect(other.status).toBe(500);
    expect(other.body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal server error', requestId: 'req-1' });
    expect(other.headers['retry-after']).toBeUndefined();
  });

  it.each([
    ['a deadlock', Object.assign(new Error('deadlock detected DETAIL: Process 12 waits for ShareLock on transaction 9'), { code: '40P01' })],
    ['a shard moved (Citus)', { message: 'query failed', driverError: { code: 'XX000', message: 'could not find valid entry for shard 102008' } }],
  ])('answers a conflict the database undid (%s) with 503 DATABASE_CONFLICT and Retry-After: 1, no internal text', (_name, exception) => {
    const { status, body, headers } = render(exception);
    expect(status).toBe(503);
    expect(body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'Conflict with concurrent work, nothing was written: retry',
      code: 'DATABASE_CONFLICT',
      requestId: 'req-1',
    });
    expect(headers['retry-after']).toBe('1');
  });

  it.each([
    ['PostgreSQL disk_full', Object.assign(new Error('could not extend file "base/16384/2619": No space left on device'), { code: '53100' })],
    ['wrapped by TypeORM', { message: 'query failed', driverError: { code: '53100', message: 'x' } }],
    ['Node ENOSPC', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })],
  ])('answers a full disk (%s) with 507 STORAGE_FULL, Retry-After, and marks storage pressure', (_name, exception) => {
    resetStoragePressure();
    const { status, body, headers } = render(exception);
    expect(status).toBe(507);
    expect(body).toEqual({
      statusCode: 507,
      error: 'Insufficient Storage',
      message: 'Storage full: the database cannot store more data until space is freed',
      code: 'STORAGE_FULL',
      requestId: 'req-1',
    });
    expect(headers['retry-after']).toBe('60');
    expect(storageFullSeenWithin(60_000)).toBeInstanceOf(Date);
    expect(storageFullSeenWithin(60_000, Date.now() + 61_000)).toBeUndefined();
  });
});
