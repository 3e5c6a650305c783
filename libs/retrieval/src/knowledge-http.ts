import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { MultipartRouteOptions } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';

/** Body limit of document routes: a 2 MiB document must reach validation (and get a 400, not a 413). */
export const DOCUMENT_BODY_LIMIT = 4 * 1024 * 1024;
export const BULK_BODY_LIMIT = 64 * 1024 * 1024;

/** Form fields of an upload and the bytes of one (`metadata` is the largest: a JSON object). */
const UPLOAD_FIELDS = 10;
const UPLOAD_FIELD_BYTES = 64 * 1024;

/**
 * Raises Fastify's body limit for the knowledge document routes (bulk import and imports also take
 * `application/x-ndjson`, as raw text through the API's shared parser, docs/http-edge.md "Bodies"; the
 * limit holds for every content type), and lets the upload route take multipart/form-data. Runs at provider
 * construction, before Nest registers routes.
 */
@Injectable()
export class KnowledgeHttpSetup {
  constructor(host: HttpAdapterHost, config: AppConfig) {
    const fastify = host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify || typeof fastify.addHook !== 'function') return;
    const uploads = config.uploads;
    const multipart: MultipartRouteOptions = {
      maxFileBytes: uploads.maxFileBytes,
      maxFiles: uploads.maxFiles,
      maxFields: UPLOAD_FIELDS,
      maxFieldBytes: UPLOAD_FIELD_BYTES,
    };
    fastify.addHook('onRoute', (route) => {
      // Uploads (docs/documents.md "Upload"): the only route that takes multipart/form-data, up to UPLOAD_MAX_REQUEST_BYTES.
      if (route.url === '/admin/knowledge/files' && route.method === 'POST') {
        route.bodyLimit = uploads.maxRequestBytes;
        route.config = { ...(route.config as object | undefined), multipart };
      } else if (route.url === '/admin/knowledge/documents/bulk' || (route.url === '/admin/knowledge/imports' && route.method === 'POST'))
        route.bodyLimit = BULK_BODY_LIMIT;
      else if (route.url === '/admin/knowledge/documents' && route.method === 'POST') route.bodyLimit = DOCUMENT_BODY_LIMIT;
    });
  }
}
