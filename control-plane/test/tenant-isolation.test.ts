/**
 * The tenant-isolation harness. For every route the app registers (enumerated from the app, never listed by
 * hand), it checks that organisation B's key neither reads nor changes organisation A's data, that a key lacking the
 * route's scope gets 403, and that a revoked key gets 401. Routes added by later issues are covered automatically.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Scope } from '../src/auth/scopes.ts';
import { API_PREFIX } from '../src/app.ts';
import { startTestApp } from './support/app.ts';
import { startBusServices } from './support/isolation/bus-services.ts';
import { fingerprint } from './support/isolation/snapshot.ts';
import { synthesise, type SynthesisedRequest } from './support/isolation/request-synthesis.ts';
import { keyWithout, revokedKey, seedTenant, type Tenant } from './support/isolation/tenants.ts';
import { createIsolatedBus } from './support/workers.ts';
import { RazorpayFake } from './fakes/payments/razorpay-fake.ts';

/**
 * Routes that take no API key. Each is here on purpose: the token in the path is its credential, or it
 * serves public documentation. A new public route must be added here knowingly.
 */
const PUBLIC_ROUTES = new Set([
  'GET /api/v1/openapi.json',
  'GET /api/v1/invitations/:token',
  'POST /api/v1/invitations/:token/accept',
  // Opened by a chat session token instead of a key: signed, bound to one conversation of one organisation, so it
  // names nothing else to reach (control-plane/test/widget-chat.test.ts refuses forged and expired ones).
  'GET /api/v1/widget/chat',
  'GET /api/v1/widget/chat/messages',
  'POST /api/v1/widget/chat/messages',
  'POST /api/v1/widget/chat/end',
]);

// The harness's own bus namespace, so the workers it starts never serve another test file's requests.
const bus = await createIsolatedBus();
// The payment processor's fake, so the payment routes answer as configured ones do rather than 503.
const processor = await RazorpayFake.start();
const t = await startTestApp({
  bus,
  rateLimits: { widget: 10_000 },
  payments: {
    apiUrl: processor.url,
    credentials: {
      keyId: processor.account.keyId,
      keySecret: processor.account.keySecret,
      webhookSecret: processor.account.webhookSecret,
    },
    usdInrRateE4: 832_500,
  },
});
const services = await startBusServices(bus);
afterAll(async () => {
  await services.close();
  await t.close();
  await bus.close();
  await processor.close();
});
const tenantB = await seedTenant(t.db.sql, 'Beta');

const apiRoutes = t.app.routeCatalogue.filter((r) => r.url.startsWith(`${API_PREFIX}/`));
const guarded = apiRoutes.filter((r) => r.config.auth !== 'public');

function send(key: string, request: SynthesisedRequest) {
  return t.call(key, {
    method: request.method as never,
    url: request.url,
    query: request.query,
    payload: request.payload as never,
    headers: request.headers,
  });
}

function mentionsAny(text: string, values: readonly string[]): string | undefined {
  return values.find((value) => text.includes(value));
}

describe('tenant isolation harness', () => {
  it('finds the routes to check, and every keyless route is a known public one', () => {
    expect(guarded.length).toBeGreaterThan(10);
    const keyless = apiRoutes.filter((r) => r.config.auth === 'public').map((r) => `${r.method} ${r.url}`);
    expect(keyless.filter((r) => !PUBLIC_ROUTES.has(r))).toEqual([]);
  });

  it('every guarded route declares its scope (an empty list means any valid key)', () => {
    expect(guarded.filter((r) => r.config.scope === undefined).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  describe.each(guarded.map((route) => [`${route.method} ${route.url}`, route] as const))('%s', (_name, route) => {
    const scopes: readonly Scope[] = route.config.scope === undefined ? [] : [route.config.scope].flat();
    const widgetRoute = route.config.auth === 'widget';
    let a: Tenant;
    let request: SynthesisedRequest;

    it("organisation B's key neither reads nor changes organisation A's data", async () => {
      a = await seedTenant(t.db.sql, 'Alpha');
      request = synthesise(route, a.ids);
      const before = await fingerprint(t.db.sql, a.ids.organisationId);
      const res = await send(widgetRoute ? tenantB.widgetToken : tenantB.ownerKey, request);
      const leaked = mentionsAny(res.body, Object.values(a.ids));
      expect(leaked, `answer ${res.statusCode} mentions A's ${leaked}: ${res.body.slice(0, 300)}`).toBeUndefined();
      if (JSON.stringify(request).includes(a.ids.organisationId)) {
        // Naming another organisation is refused outright (spec document 3), not quietly answered for one's own.
        const expected = route.config.foreignOrganisation === 'not-found' ? 404 : 403;
        expect(res.statusCode, res.body).toBe(expected);
      } else {
        const refused = res.statusCode === 403 || res.statusCode === 404;
        const answeredOwnData = res.statusCode >= 200 && res.statusCode < 300;
        expect(refused || answeredOwnData, `B got ${res.statusCode}: ${res.body.slice(0, 300)}`).toBe(true);
      }
      expect(await fingerprint(t.db.sql, a.ids.organisationId)).toBe(before);
    });

    // A route open to any valid key (scope []) has no scope to withhold.
    if (scopes.length > 0)
      it('a key lacking the scope gets 403', async () => {
        const key = await keyWithout(t.db.sql, a, scopes);
        const before = await fingerprint(t.db.sql, a.ids.organisationId);
        const res = await send(key, request);
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json().code).toBe('insufficient_scope');
        expect(await fingerprint(t.db.sql, a.ids.organisationId)).toBe(before);
      });

    it('a revoked key gets 401', async () => {
      const res = await send(await revokedKey(t.db.sql, a), request);
      expect(res.statusCode, res.body).toBe(401);
    });

    it("the harness's request is well-formed: A's own key is not refused as malformed", async () => {
      const res = await send(widgetRoute ? a.widgetToken : a.ownerKey, request);
      expect(res.statusCode, res.body).not.toBe(401);
      expect(res.statusCode, res.body).toBeLessThan(500);
      if (res.statusCode === 400) expect(res.json().code, res.body).not.toBe('validation_failed');
    });
  });
});
