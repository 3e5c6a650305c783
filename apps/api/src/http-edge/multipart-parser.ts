import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { concatSliced, invalidRequest, type MultipartBody, type MultipartFile, type MultipartRouteOptions } from '@arbiter/common';
import { HttpEdgeErrorCode, HttpEdgeException } from './http-edge.exception.js';

type ParserDone = (error: Error | null, body?: unknown) => void;

/** The route's multipart options (`config.multipart`, set by the owning lib's `onRoute` hook), or undefined: the route takes none. */
export function multipartOptionsOf(request: FastifyRequest): MultipartRouteOptions | undefined {
  return (request.routeOptions.config as { multipart?: MultipartRouteOptions } | undefined)?.multipart;
}

/**
 * `multipart/form-data` for the routes that opt in (docs/http-edge.md "Bodies"): parsed with busboy from the
 * payload the body policy already guards (the route's size limit and BODY_TIMEOUT_MS hold), into
 * `{files, fields}`. A file over the route's per-file limit is kept as a name and size without its bytes
 * (`tooLarge`), so the route can refuse that file alone; the rest of it is discarded as it arrives. Every
 * other route refuses the type with 415 (body-policy.ts), before this runs.
 */
export function registerMultipartParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('multipart/form-data', (request: FastifyRequest, payload: Readable, done: ParserDone) => {
    const options = multipartOptionsOf(request);
    if (!options) {
      done(new HttpEdgeException(HttpEdgeErrorCode.UnsupportedMediaType, 'multipart/form-data (this route takes application/json)'));
      return;
    }
    parseMultipart(request, payload, options).then(
      (body) => done(null, body),
      (error: Error) => done(error),
    );
  });
}

function parseMultipart(request: FastifyRequest, payload: Readable, options: MultipartRouteOptions): Promise<MultipartBody> {
  return new Promise<MultipartBody>((resolve, reject) => {
    const files: MultipartFile[] = [];
    const fields: Record<string, string> = {};
    const pending: Promise<void>[] = [];
    let failed = false;
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      payload.unpipe();
      payload.resume();
      reject(error);
    };
    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: request.headers as { 'content-type': string },
        defCharset: 'utf8',
        limits: {
          fileSize: options.maxFileBytes,
          files: options.maxFiles,
          fields: options.maxFields,
          fieldSize: options.maxFieldBytes,
          parts: options.maxFiles + options.maxFields,
        },
      });
    } catch {
      fail(invalidRequest([{ field: 'body', errors: ['multipart/form-data needs a boundary'] }]));
      return;
    }
    parser.on('file', (fieldName, stream, fileName, _encoding, mimeType) => {
      const parts: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (!stream.truncated) parts.push(chunk);
      });
      pending.push(
        new Promise<void>((done) => {
          stream.on('end', () => {
            const tooLarge = stream.truncated;
            const file: MultipartFile = {
              fieldName,
              // A client may send a path (`C:\docs\manual.pdf`): only its last segment names the file.
              fileName: (fileName ?? '').split(/[\\/]/).pop()?.trim() ?? '',
              declaredType: mimeType,
              bytes: null,
              size,
              tooLarge,
            };
            // In the form's order, whichever file's bytes are joined first.
            files.push(file);
            if (tooLarge) return done();
            // Joined in slices: one Buffer.concat of a 50 MiB file held the event loop for ~200 ms (docs/hot-paths.md "A large upload and the event loop").
            void concatSliced(parts, size).then((bytes) => {
              file.bytes = bytes;
              done();
            });
          });
        }),
      );
    });
    parser.on('field', (name, value, nameTruncated, valueTruncated) => {
      if (nameTruncated || valueTruncated) fail(invalidRequest([{ field: name, errors: [`a form field holds at most ${options.maxFieldBytes} bytes`] }]));
      else fields[name] = value;
    });
    parser.on('filesLimit', () => fail(invalidRequest([{ field: 'file', errors: [`at most ${options.maxFiles} files per request`] }])));
    parser.on('fieldsLimit', () => fail(invalidRequest([{ field: 'body', errors: [`at most ${options.maxFields} form fields per request`] }])));
    parser.on('partsLimit', () => fail(invalidRequest([{ field: 'body', errors: [`at most ${options.maxFiles + options.maxFields} parts per request`] }])));
    parser.on('error', () => fail(invalidRequest([{ field: 'body', errors: ['the multipart body is malformed'] }])));
    parser.on('finish', () => {
      void Promise.all(pending).then(() => {
        if (!failed) resolve({ files, fields });
      });
    });
    // Errors of the guarded payload (413 past the route's limit, 408 on a slow body) are the request's answer.
    payload.on('error', (error: Error) => fail(error));
    payload.pipe(parser);
  });
}
