/**
 * Per-minute rate limits of spec document 3, each counted per API key or per client address as its row says (the
 * spec's "per host" and "per IP" both name the calling machine: its address as the proxy chain reports it when
 * Fastify's trustProxy is set, else the socket's).
 * Routes add `app.limit(name, by)` to their preHandler list (after authentication, so a per-key limit knows the
 * key); several limits can guard one route. Refusals are 429 `{ success: false, message }`.
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { ApiError } from '../../errors.ts';
import { RATE_LIMIT_WINDOW_MS, type RateLimitName } from '../../rate-limits.ts';

/** What a limit counts by: the API key, or the client's address. */
export type LimitBy = 'key' | 'ip';

declare module 'fastify' {
  interface FastifyInstance {
    limit(name: RateLimitName, by: LimitBy): preHandlerAsyncHookHandler;
  }
}

/** The handlers `app.limit` made, so the OpenAPI document can tell which routes may answer 429. */
const limitHandlers = new WeakSet<object>();

/** Whether a preHandler is a rate limit made by `app.limit`. */
export const isRateLimit = (handler: unknown): boolean => typeof handler === 'function' && limitHandlers.has(handler);

export default fp(
  async function rateLimitPlugin(app: FastifyInstance, options: { limits: Record<RateLimitName, number> }) {
    // The plugin's own route hook runs once per request, so a route could carry only one limit; counting through
    // createRateLimit lets several limits (per IP and per key, say) guard one route.
    await app.register(rateLimit, { global: false });
    app.decorate('limit', (name: RateLimitName, by: LimitBy): preHandlerAsyncHookHandler => {
      const count = app.createRateLimit({
        max: options.limits[name],
        timeWindow: RATE_LIMIT_WINDOW_MS,
        keyGenerator: (request: FastifyRequest) => `${name}:${by}:${keyOf(request, by)}`,
      });
      const handler: preHandlerAsyncHookHandler = async (request, reply) => {
        const result = await count(request);
        if (result.isAllowed || !result.isExceeded) return;
        void reply.header('retry-after', String(result.ttlInSeconds));
        throw new ApiError(
          'rate_limited',
          `Rate limit exceeded: at most ${result.max} requests per minute; retry in ${result.ttlInSeconds} s`,
        );
      };
      limitHandlers.add(handler);
      return handler;
    });
  },
  { name: 'parley-rate-limit' },
);

function keyOf(request: FastifyRequest, by: LimitBy): string {
  return by === 'key' ? (request.principal?.keyId ?? `ip:${request.ip}`) : request.ip;
}
