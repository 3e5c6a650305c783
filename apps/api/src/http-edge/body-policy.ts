import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Transform, type TransformCallback } from 'node:stream';
import { announcesBody } from '@arbiter/tenancy';
import { HttpEdgeErrorCode, HttpEdgeException } from './http-edge.exception.js';
import { multipartOptionsOf } from './multipart-parser.js';

export interface BodyPolicyOptions {
  /** The whole body must arrive within this long (BODY_TIMEOUT_MS). */
  timeoutMs: number;
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const essence = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return essence ? essence : undefined;
}

export function describeLimit(bytes: number): string {
  return bytes % 1_048_576 === 0 ? `${bytes / 1_048_576} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * Counts the bytes of a body as they arrive and fails it past the route's limit or when the whole
 * body has not arrived within the time limit, whatever the content type (docs/http-edge.md "Bodies").
 */
export class GuardedBody extends Transform {
  receivedEncodedLength = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limit: number,
    timeoutMs: number,
  ) {
    super();
    this.timer = setTimeout(
      () => this.destroy(new HttpEdgeException(HttpEdgeErrorCode.BodyTimeout, `the whole body must arrive within ${timeoutMs} ms`)),
      timeoutMs,
    );
    this.timer.unref();
    this.once('close', () => clearTimeout(this.timer));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    if (this.receivedEncodedLength > this.limit) {
      callback(new HttpEdgeException(HttpEdgeErrorCode.BodyTooLarge, `at most ${describeLimit(this.limit)} on this route`));
      return;
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    clearTimeout(this.timer);
    callback();
  }
}

function routeBodyLimit(request: FastifyRequest): number {
  return request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit ?? 1_048_576;
}

/**
 * After authentication and before any byte of the body is read (`preParsing`): an unknown content type
 * → 415, a declared length over the route's limit → 413, and every body — JSON, NDJSON, text, multipart —
 * counted against that limit and timed out after `timeoutMs` (→ 408). Each refusal closes the connection,
 * so the rest of the body is never drained.
 */
export function registerBodyPolicy(fastify: FastifyInstance, options: BodyPolicyOptions): void {
  fastify.addHook('preParsing', async (request, reply, payload) => {
    if (!announcesBody(request)) return payload;
    const mediaType = mediaTypeOf(request.headers['content-type']);
    try {
      if (mediaType !== undefined && !fastify.hasContentTypeParser(mediaType)) {
        throw new HttpEdgeException(HttpEdgeErrorCode.UnsupportedMediaType, `${mediaType.slice(0, 100)} (send application/json)`);
      }
      // Only routes that opt in take uploads (multipart-parser.ts).
      if (mediaType === 'multipart/form-data' && !multipartOptionsOf(request)) {
        throw new HttpEdgeException(HttpEdgeErrorCode.UnsupportedMediaType, 'multipart/form-data (this route takes application/json)');
      }
      const limit = routeBodyLimit(request);
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit) {
        throw new HttpEdgeException(HttpEdgeErrorCode.BodyTooLarge, `at most ${describeLimit(limit)} on this route, Content-Length says ${declared} bytes`);
      }
      const guarded = new GuardedBody(limit, options.timeoutMs);
      payload.on('error', (error) => guarded.destroy(error));
      return payload.pipe(guarded);
    } catch (error) {
      void reply.header('connection', 'close');
      throw error;
    }
  });
}
