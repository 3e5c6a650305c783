import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/** Body limit of a labelled-set upload (50,000 examples of typical length fit; longer texts are cut by the example limit first). */
export const LABELLED_SET_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Raises Fastify's body limit for labelled-set uploads (JSONL, `application/x-ndjson`, reaches the route as
 * the raw text through the API's shared parser, docs/http-edge.md "Bodies"; the limit holds for every
 * content type). Runs at provider construction, before Nest registers routes.
 */
@Injectable()
export class LearningHttpSetup {
  constructor(host: HttpAdapterHost) {
    const fastify = host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify || typeof fastify.addHook !== 'function') return;
    fastify.addHook('onRoute', (route) => {
      if (route.url === '/admin/intent/labelled-sets' && route.method === 'POST') route.bodyLimit = LABELLED_SET_BODY_LIMIT;
    });
  }
}
