import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import { inspectRequest } from './input-guards.js';

type Parts = Pick<FastifyRequest, 'headers' | 'params' | 'query' | 'body'>;
const request = (parts: Partial<Parts>): Parts => ({ headers: {}, params: {}, query: {}, body: undefined, ...parts });

describe('inspectRequest', () => {
  it('passes an ordinary request', () => {
    expect(inspectRequest(request({ headers: { 'x-api-key': 'k' }, query: { channel: 'web' }, body: { query: '示教器黑屏' } }), true)).toEqual([]);
  });

  const rows: [string, Partial<Parts>, boolean, string][] = [
    ['NUL in a query filter', { query: { domain: 'a\u0000' } }, false, 'domain'],
    ['NUL in a path parameter', { params: { id: '\u0000' } }, false, 'id'],
    ['NUL in a header', { headers: { 'x-api-key': 'ab\u0000c' } }, false, 'header x-api-key'],
    ['JSON null body', { body: null }, true, 'body'],
    ['JSON number body', { body: 42 }, true, 'body'],
    ['JSON string body', { body: 'text' }, true, 'body'],
    ['lone surrogate in a body field', { body: { keywords: ['\ud800'] } }, true, 'keywords[0]'],
  ];
  it.each(rows)('rejects %s', (_name, parts, json, field) => {
    expect(inspectRequest(request(parts), json).map((p) => p.field)).toEqual([field]);
  });

  it('lets a non-JSON text body (NDJSON) through unless it holds a NUL', () => {
    expect(inspectRequest(request({ body: '{"a":1}\n{"a":2}\n' }), false)).toEqual([]);
    expect(inspectRequest(request({ body: '{"a":1}\u0000' }), false).map((p) => p.field)).toEqual(['body']);
  });
});
