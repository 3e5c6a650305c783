import { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { MetricsService } from '@arbiter/common';

const QUIET_ROUTES = new Set(['/health', '/metrics']);

/**
 * Per request: a histogram by method, route pattern (bounded: never the raw URL) and status class,
 * and one structured access-log line carrying the request id.
 */
export function registerHttpObservability(fastify: FastifyInstance, metrics: MetricsService): void {
  const logger = new Logger('HTTP');
  const histogram = metrics.histogram(
    'arbiter_http_request_duration_seconds',
    'HTTP request latency',
    ['method', 'route', 'status'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    histogram.observe({ method: request.method, route, status: `${Math.floor(reply.statusCode / 100)}xx` }, seconds);
    if (!QUIET_ROUTES.has(route)) {
      logger.log({
        msg: 'request',
        requestId: request.id,
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      });
    }
    done();
  });
}
