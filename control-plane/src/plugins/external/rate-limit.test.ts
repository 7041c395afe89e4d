import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../http/error-handler.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from '../../rate-limits.ts';
import rateLimitPlugin from './rate-limit.ts';

let app: FastifyInstance;
afterEach(() => app?.close());

async function appWith(limits: Partial<Record<RateLimitName, number>>): Promise<FastifyInstance> {
  app = Fastify();
  installErrorHandling(app);
  await app.register(rateLimitPlugin, { limits: { ...RATE_LIMIT_DEFAULTS, ...limits } });
  app.get('/per-ip', { preHandler: [app.limit('dialerStatus', 'ip')] }, async () => ({ ok: true }));
  app.get(
    '/two-limits',
    { preHandler: [app.limit('aiEnhancementPerIp', 'ip'), app.limit('aiEnhancementPerKey', 'key')] },
    async () => ({ ok: true }),
  );
  await app.ready();
  return app;
}

async function statuses(count: number, request: InjectOptions): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) out.push((await app.inject(request)).statusCode);
  return out;
}

describe('rate limits', () => {
  it('count per IP address', async () => {
    await appWith({ dialerStatus: 2 });
    expect(await statuses(3, { url: '/per-ip', remoteAddress: '10.0.0.1' })).toEqual([200, 200, 429]);
    expect(await statuses(1, { url: '/per-ip', remoteAddress: '10.0.0.2' })).toEqual([200]);
  });

  it('stack: the stricter of two limits on one route wins', async () => {
    await appWith({ aiEnhancementPerIp: 5, aiEnhancementPerKey: 2 });
    expect(await statuses(3, { url: '/two-limits', remoteAddress: '10.0.0.3' })).toEqual([200, 200, 429]);
  });

  it('answer 429 with the spec body and a Retry-After', async () => {
    await appWith({ dialerStatus: 1 });
    await app.inject({ url: '/per-ip' });
    const res = await app.inject({ url: '/per-ip' });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'rate_limited',
      message: expect.stringContaining('at most 1 requests per minute'),
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
