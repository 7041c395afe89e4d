/**
 * Per-minute rate limits of spec document 3, each counted per key, per IP or per calling host as its row says.
 * Routes add `app.limit(name, by)` to their preHandler list (after authentication, so a per-key limit knows the
 * key); several limits can guard one route. Refusals are 429 `{ success: false, message }`.
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { ApiError } from '../../errors.ts';
import { RATE_LIMIT_WINDOW_MS, type RateLimitName } from '../../rate-limits.ts';

/** What a limit counts by: the API key, the client's IP address, or the Host header the client called. */
export type LimitBy = 'key' | 'ip' | 'host';

declare module 'fastify' {
  interface FastifyInstance {
    limit(name: RateLimitName, by: LimitBy): preHandlerAsyncHookHandler;
  }
}

export default fp(
  async function rateLimitPlugin(app: FastifyInstance, options: { limits: Record<RateLimitName, number> }) {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) =>
        new ApiError('rate_limited', `Rate limit exceeded: at most ${context.max} requests per minute; retry in ${context.after}`),
    });
    app.decorate('limit', (name: RateLimitName, by: LimitBy) => {
      const check = app.rateLimit({
        max: options.limits[name],
        timeWindow: RATE_LIMIT_WINDOW_MS,
        groupId: `${name}:${by}`,
        keyGenerator: (request: FastifyRequest) => `${name}:${by}:${keyOf(request, by)}`,
      });
      return check as preHandlerAsyncHookHandler;
    });
  },
  { name: 'parley-rate-limit' },
);

function keyOf(request: FastifyRequest, by: LimitBy): string {
  if (by === 'key') return request.principal?.keyId ?? `ip:${request.ip}`;
  if (by === 'host') return request.hostname;
  return request.ip;
}
