/**
 * HTTP latency by route (docs/architecture.md §19): every answered request is observed with its route's pattern
 * (`/api/v1/voice-sessions/:sessionId`), never its raw URL, so the label set stays as small as the route table; a
 * request no route matched counts as `unmatched`. Timed by Fastify itself (reply.elapsedTime), from the request's
 * arrival to the end of the answer.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Histogram } from 'prom-client';
import { metricsRegistry } from '@parley/engine/metrics';

/** Buckets, seconds: a cached key check answers in a millisecond; a placement that waits for an engine takes seconds. */
const HTTP_BUCKETS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpDuration = new Histogram({
  name: 'parley_http_request_duration_seconds',
  help: 'HTTP requests the control plane answered, by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: HTTP_BUCKETS_SECONDS,
  registers: [metricsRegistry],
});

async function httpMetrics(app: FastifyInstance) {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpDuration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

export default fp(httpMetrics, { name: 'http-metrics' });
