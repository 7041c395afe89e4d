/**
 * A fuzzer over every HTTP route the app registers (enumerated from the app, so a new route is fuzzed without being
 * listed): requests generated from each route's own schema, valid enough to reach services and Postgres, broken in
 * the ways request-arbitrary.ts lists, sent to the real app on a real database with a seeded organisation. Every
 * answer must pass answer-checks.ts: no 5xx, the envelope and x-request-id on every refusal, no stack trace or
 * server path, bounded time (issue 23).
 *
 * The seed is fixed so CI runs the same requests each time. For a long run, more requests per route and another
 * seed: PARLEY_FUZZ_RUNS=2000 PARLEY_FUZZ_SEED=$RANDOM npx vitest run test/fuzz/rest-fuzz.test.ts
 * A failure prints the shrunk request and the seed and path to replay it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CARRIERS } from '../../src/telephony/carrier.ts';
import { startTestApp } from '../support/app.ts';
import { startBusServices } from '../support/isolation/bus-services.ts';
import { seedTenant } from '../support/isolation/tenants.ts';
import { createIsolatedBus } from '../support/workers.ts';
import { RazorpayFake } from '../fakes/payments/razorpay-fake.ts';
import {
  ANSWER_TIME_LIMIT_MS,
  isCarrierDocument,
  isJsonRpcError,
  isOAuthRefusal,
  problemsOf,
  type AnswerRules,
} from './answer-checks.ts';
import { requestFor, type FuzzRequest } from './request-arbitrary.ts';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 25);
const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261127);
/** Share of fields replaced by a hostile value; the rest are valid so requests reach deep. */
const HOSTILITY = 0.3;

/**
 * Routes not fuzzed, each with its reason. Empty today; a route may be added only knowingly, with why.
 */
const EXCLUDED = new Map<string, string>([]);

/** Doors that refuse in a protocol of their own rather than in the REST envelope. */
const DOOR_RULES: Array<{ prefix: string; rules: AnswerRules }> = [
  { prefix: '/mcp', rules: { ownRefusals: isJsonRpcError } },
  { prefix: '/webhooks/', rules: { ownRefusals: isCarrierDocument } },
  { prefix: '/oauth/', rules: { ownRefusals: isOAuthRefusal } },
];

/**
 * Every carrier's API, played by one server that refuses every credential: a valid-ish connect, sync or purchase
 * reaches "the carrier" and must come back as a clean refusal, without dialling the real internet or hanging.
 */
function startRefusingCarrier(): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'authentication failed', message: 'Invalid credentials' }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const carrier = await startRefusingCarrier();
const carrierUrl = `http://127.0.0.1:${(carrier.address() as AddressInfo).port}`;
// The payment processor's fake, so the payment routes answer as configured ones do rather than 503.
const processor = await RazorpayFake.start();
const bus = await createIsolatedBus();
const t = await startTestApp({
  payments: {
    apiUrl: processor.url,
    credentials: {
      keyId: processor.account.keyId,
      keySecret: processor.account.keySecret,
      webhookSecret: processor.account.webhookSecret,
    },
    usdInrRateE4: 832_500,
  },
  bus,
  rateLimits: Object.fromEntries(
    [
      'widget',
      'telephony',
      'telephonySensitive',
      'telephonyStrict',
      'analytics',
      'aiEnhancementPerIp',
      'aiEnhancementPerKey',
      'dialerStatus',
      'callPlacement',
      'mcp',
      'oauthRegistration',
    ].map((n) => [n, 1_000_000]),
  ),
  carrierApiUrls: Object.fromEntries(CARRIERS.map((c) => [c, carrierUrl])) as never,
});
const services = await startBusServices(bus);
const tenant = await seedTenant(t.db.sql, 'Fuzzed');
afterAll(async () => {
  await services.close();
  await t.close();
  await bus.close();
  carrier.close();
  await processor.close();
});

/** Answers by route and status: the fuzz must reach handlers (2xx, 404, 409…), not only the validator's 400. */
const answered = new Map<string, Map<number, number>>();
function count(route: string, status: number) {
  const byStatus = answered.get(route) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  answered.set(route, byStatus);
}

const routes = t.app.routeCatalogue.filter((r) => !EXCLUDED.has(`${r.method} ${r.url}`));

async function send(request: FuzzRequest) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ANSWER_TIME_LIMIT_MS * 2} ms`)),
      ANSWER_TIME_LIMIT_MS * 2,
    );
  });
  try {
    const res = await Promise.race([
      t.app.inject({
        method: request.method as never,
        url: request.url,
        headers: request.headers,
        payload: request.payload,
      }),
      timeout,
    ]);
    return { statusCode: res.statusCode, headers: res.headers, body: res.body, elapsedMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

describe('REST fuzz', () => {
  it('fuzzes every registered route but the listed exclusions', () => {
    expect(routes.length).toBeGreaterThan(60);
    for (const key of EXCLUDED.keys()) expect(t.app.routeCatalogue.map((r) => `${r.method} ${r.url}`)).toContain(key);
  });

  routes.forEach((route, index) => {
    const rules = DOOR_RULES.find((d) => route.url.startsWith(d.prefix))?.rules;
    it(`${route.method} ${route.url}`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(requestFor(route, tenant.ids, tenant.ownerKey, HOSTILITY), async (request) => {
          const answer = await send(request);
          count(`${route.method} ${route.url}`, answer.statusCode);
          const problems = problemsOf(answer, rules);
          if (problems.length) throw new Error(`${problems.join('; ')}\n  request: ${request.story}`);
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    });
  });

  it('got past validation on most routes (else it only fuzzes the validator)', () => {
    const deep = [...answered].filter(([, byStatus]) => [...byStatus.keys()].some((status) => status !== 400));
    if (process.env.PARLEY_FUZZ_VERBOSE) {
      for (const [route, byStatus] of answered) console.log(route, Object.fromEntries(byStatus));
    }
    expect(deep.length / answered.size).toBeGreaterThan(0.8);
  });

  it('left no prototype polluted', () => {
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
