import { describe, expect, it } from '@jest/globals';
import { rateClassOf } from './route-class.js';

describe('rateClassOf (docs/http-edge.md "Rate limits")', () => {
  it.each([
    ['POST', '/ai/chat', 'chat'],
    ['POST', '/v1/chat/completions', 'chat'],
    ['GET', '/v1/models', null],
    ['POST', '/ai/intent/route', 'route'],
    ['POST', '/ai/knowledge/lookup', 'lookup'],
    ['POST', '/api/sessions', 'ingest'],
    ['GET', '/api/sessions/:id', 'ingest'],
    ['POST', '/api/feedback', 'ingest'],
    ['POST', '/api/feedbackx', null],
    ['POST', '/admin/intent-rules', 'admin'],
    ['DELETE', '/admin/api-keys/:id', 'admin'],
    ['put', '/admin/tenants/:id/limits', 'admin'],
    ['GET', '/admin/intent-rules', null],
    ['HEAD', '/admin/jobs', null],
    ['GET', '/health', null],
    ['GET', '/metrics', null],
    ['POST', '/administrator', null],
    ['POST', '/ai/chat?stream=true', 'chat'],
  ] as const)('%s %s → %s', (method, path, expected) => {
    expect(rateClassOf(method, path)).toBe(expected);
  });
});
