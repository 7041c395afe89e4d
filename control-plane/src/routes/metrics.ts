/**
 * GET /metrics (docs/architecture.md §19): the process's metrics in Prometheus's text format, from the registry every
 * role of the process shares (@parley/engine/metrics). Not an API-key route: a scraper is no organisation. With
 * PARLEY_METRICS_TOKEN set it wants `Authorization: Bearer <token>` (401 otherwise); unset, it is open — the
 * control plane's port faces the Internet, so a deployment either sets the token or keeps /metrics off its proxy
 * (docker-compose.yml's Caddyfile does).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { metricsAuthorised, renderMetrics } from '@parley/engine/metrics';
import { ApiError } from '../errors.ts';

export default async function metricsRoutes(app: FastifyInstance, options: { token: string | undefined }) {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['health'],
        summary: 'Metrics for Prometheus (text exposition format 0.0.4)',
        description:
          'Calls, turn latency, barge-ins, late frames, worker pool, HTTP latency by route and job lag of this ' +
          'process. When the server has PARLEY_METRICS_TOKEN, send it as `Authorization: Bearer <token>`; the ' +
          'engine, the workers (WORKER_HEALTH_PORT) and the SIP gateway (SIP_HEALTH_PORT) serve the same path.',
        security: [],
        response: {
          200: Type.Unsafe<string>({ description: 'text/plain; version=0.0.4', type: 'string' }),
          401: Type.Ref('ErrorBody'),
        },
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      if (!metricsAuthorised(request.headers.authorization, options.token)) {
        void reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw new ApiError('unauthorized', 'Metrics need Authorization: Bearer <PARLEY_METRICS_TOKEN>');
      }
      const { contentType, body } = await renderMetrics();
      return reply.type(contentType).send(body);
    },
  );
}
