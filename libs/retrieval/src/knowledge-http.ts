import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/** Body limit of document routes: a 2 MiB document must reach validation (and get a 400, not a 413). */
export const DOCUMENT_BODY_LIMIT = 4 * 1024 * 1024;
export const BULK_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Raises Fastify's body limit for the knowledge document routes and accepts `application/x-ndjson` for
 * bulk import and imports. Runs at provider construction, before Nest registers routes.
 */
@Injectable()
export class KnowledgeHttpSetup {
  constructor(host: HttpAdapterHost) {
    const fastify = host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify || typeof fastify.addHook !== 'function') return;
    fastify.addHook('onRoute', (route) => {
      if (route.url === '/admin/knowledge/documents/bulk' || (route.url === '/admin/knowledge/imports' && route.method === 'POST'))
        route.bodyLimit = BULK_BODY_LIMIT;
      else if (route.url === '/admin/knowledge/documents' && route.method === 'POST') route.bodyLimit = DOCUMENT_BODY_LIMIT;
    });
    if (!fastify.hasContentTypeParser('application/x-ndjson')) {
      fastify.addContentTypeParser('application/x-ndjson', { parseAs: 'string', bodyLimit: BULK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    }
  }
}
