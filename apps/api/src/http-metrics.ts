import type { FastifyInstance } from 'fastify';
import type { MetricsService } from '@arbiter/common';

/** Request histogram by method, route pattern (bounded: never the raw URL) and status class. */
export function registerHttpMetrics(fastify: FastifyInstance, metrics: MetricsService): void {
  const histogram = metrics.histogram('arbiter_http_request_duration_seconds', 'HTTP request latency', ['method', 'route', 'status'], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    histogram.observe({ method: request.method, route, status: `${Math.floor(reply.statusCode / 100)}xx` }, reply.elapsedTime / 1000);
    done();
  });
}
