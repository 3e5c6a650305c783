import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/** Body limit of document routes: a 2 MiB document must reach validation (and get a 400, not a 413). */
export const DOCUMENT_BODY_LIMIT = 4 * 1024 * 1024;
export const BULK_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Raises Fastify's body limit for the knowledge document routes (bulk import and imports also take
 * `application/x-ndjson`, as raw text through the API's shared parser, docs/http-edge.md "Bodies"; the
 * limit holds for every content type). Runs at provider construction, before Nest registers routes.
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
  }
}
