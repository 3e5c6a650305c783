import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findExcessNesting, invalidRequest, UNSAFE_INPUT_MESSAGES } from '@arbiter/common';

type ParserDone = (error: Error | null, body?: unknown) => void;

/** The same 400 the walk over a parsed body gives (input-guards.ts), found before parsing. */
function nestingProblem(text: string): Error | null {
  const field = findExcessNesting(text);
  return field === null ? null : invalidRequest([{ field, errors: [UNSAFE_INPUT_MESSAGES.depth] }]);
}

/**
 * The only body parsers (docs/http-edge.md "Bodies"): JSON as Fastify parses it (with its
 * prototype-poisoning checks), and NDJSON as text for the routes that take it; both refused in one pass
 * over the text when they nest deeper than MAX_JSON_DEPTH, before anything is allocated for them. No
 * parser sets a limit of its own: the route's body limit applies to every content type (body-policy.ts).
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error') as (request: FastifyRequest, body: string, done: ParserDone) => void;
  // Fastify's text/plain parser would hand any route a string no DTO takes: such a body is a 415 like any other type.
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const problem = nestingProblem(text);
    if (problem) done(problem, undefined);
    else parseJson(request, text, done);
  });
  fastify.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    done(nestingProblem(text), text);
  });
}
