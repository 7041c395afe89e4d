/**
 * Rate limits of the /telephony rows of spec document 3: one per-key budget over every telephony route, and the
 * shared sensitive-route budget of the sync routes, counted per client address across keys. Also the carrier
 * API configuration names of docs/architecture.md §2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TelephonyTestApp;

beforeAll(async () => {
  t = await startTelephonyTestApp({ rateLimits: { telephony: 3, telephonySensitive: 2 } });
});
afterAll(() => t?.close());

const overview = (org: SeededOrganisation, remoteAddress = '10.1.0.1') =>
  t.call(org.key, { method: 'GET', url: `/api/v1/telephony/overview/${org.organisationId}`, remoteAddress });
const numbers = (org: SeededOrganisation, remoteAddress = '10.1.0.1') =>
  t.call(org.key, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}`, remoteAddress });
const sync = (org: SeededOrganisation, remoteAddress: string) =>
  t.call(org.key, {
    method: 'POST',
    url: '/api/v1/telephony/carrier-b/sync',
    payload: { organisationId: org.organisationId },
    remoteAddress,
  });

describe('telephony rate limits', () => {
  it('count every /telephony route of a key against one budget per minute', async () => {
    const org = await seedOrganisation(t.db.sql, 'Limited');
    const statuses = [
      (await overview(org)).statusCode,
      (await numbers(org)).statusCode,
      (await overview(org)).statusCode,
    ];
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await numbers(org);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      success: false,
      code: 'rate_limited',
      message: expect.stringContaining('at most 3 requests per minute'),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another key, from the same address, has its own budget.
    const other = await seedOrganisation(t.db.sql, 'Unlimited');
    expect((await overview(other)).statusCode).toBe(200);
  });

  it('share the sensitive budget of the sync routes between the keys of one address', async () => {
    const orgs = await Promise.all(['One', 'Two', 'Three', 'Four'].map((name) => seedOrganisation(t.db.sql, name)));
    // Self-serve telephony is off (403), but every request that reaches the route counts.
    expect((await sync(orgs[0]!, '10.2.0.1')).statusCode).toBe(403);
    expect((await sync(orgs[1]!, '10.2.0.1')).statusCode).toBe(403);
    const third = await sync(orgs[2]!, '10.2.0.1');
    expect(third.statusCode).toBe(429);
    expect(third.json().success).toBe(false);
    expect((await sync(orgs[3]!, '10.2.0.2')).statusCode).toBe(403);
    // Other telephony routes of the limited address are not sync routes.
    expect((await overview(orgs[2]!, '10.2.0.1')).statusCode).toBe(200);
  });
});

describe('carrier API configuration', () => {
  it("defaults to each carrier's real API and reads PARLEY_CARRIER_<X>_API_URL", () => {
    expect(loadConfig({}).carrierApiUrls).toEqual({
      'carrier-a': 'https://api.plivo.com',
      'carrier-b': 'https://api.twilio.com',
      'carrier-c': 'https://api.exotel.com',
      'carrier-d': undefined,
      'carrier-e': undefined,
    });
    const config = loadConfig({
      PARLEY_CARRIER_B_API_URL: 'http://127.0.0.1:9000/',
      PARLEY_CARRIER_D_API_URL: 'https://partner.example/api',
    });
    expect(config.carrierApiUrls['carrier-b']).toBe('http://127.0.0.1:9000');
    expect(config.carrierApiUrls['carrier-d']).toBe('https://partner.example/api');
    expect(() => loadConfig({ PARLEY_CARRIER_C_API_URL: 'ftp://x' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_CARRIER_C_API_URL: 'ftp://x' })).toThrow(/PARLEY_CARRIER_C_API_URL/);
  });
});
