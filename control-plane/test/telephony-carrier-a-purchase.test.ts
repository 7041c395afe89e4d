/**
 * Buying carrier-a numbers on the organisation's own account (POST /telephony/carrier-a/search and …/purchase, the
 * routes behind the MCP tools numbers_search and numbers_purchase), against the carrier-a fake's inventory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierAFake } from './fakes/carriers/carrier-a-fake.ts';
import {
  CARRIER_A_VOICE_URL,
  startTelephonyTestApp,
  type TelephonyTestApp,
} from './fakes/carriers/telephony-test-app.ts';
import { enableFeatures, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';

let t: TelephonyTestApp;

beforeAll(async () => {
  t = await startTelephonyTestApp();
});
afterAll(() => t?.close());

const post = (org: SeededOrganisation, action: string, body: Record<string, unknown> = {}) =>
  t.call(org.key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-a/${action}`,
    payload: { organisationId: org.organisationId, ...body },
  });

/** An organisation with self-serve telephony and its own carrier-a account connected. */
async function connected(): Promise<{ org: SeededOrganisation; authId: string }> {
  const org = await seedOrganisation(t.db.sql, 'Buyer');
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
  const account = t.carrierA.addAccount();
  const res = await post(org, 'connect', account as unknown as Record<string, unknown>);
  expect(res.statusCode, res.body).toBe(201);
  return { org, authId: account.authId };
}

describe('carrier-a numbers bought on the customer account', () => {
  it('searches the inventory by country, type and pattern (voice numbers only)', async () => {
    const { org } = await connected();
    t.carrierA.offer('US', ['+14155550190', '+14155550191', '+12125550192']);
    const res = await post(org, 'search', { country: 'us', pattern: '415' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ country: 'US', type: 'local' });
    expect(data.numbers.map((n: { phoneNumber: string }) => n.phoneNumber)).toEqual(['+14155550190', '+14155550191']);

    const bad = await post(org, 'search', { type: 'premium' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('type');
  });

  it("buys a number onto the account, answered by Parley's application, and lists it PURCHASED", async () => {
    const { org, authId } = await connected();
    t.carrierA.offer('US', ['+14155550290']);
    const res = await post(org, 'purchase', { phoneNumber: '+14155550290' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      phoneNumber: '+14155550290',
      provider: 'carrier-a',
      status: 'ACTIVE',
      routingStatus: 'PURCHASED',
    });
    const atCarrier = t.carrierA.number(authId, '+14155550290');
    const app = t.carrierA.applications(authId).find((a) => a.app_id === CarrierAFake.appIdOf(atCarrier));
    expect(app?.answer_url).toBe(CARRIER_A_VOICE_URL);

    // Gone from the inventory: a second purchase is the carrier's refusal, a 400 naming it.
    const again = await post(org, 'purchase', { phoneNumber: '+14155550290' });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('carrier_rejected');
  });

  it('needs a connected account (404) and a funded wallet (402)', async () => {
    const org = await seedOrganisation(t.db.sql, 'No account');
    await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
    expect((await post(org, 'search', {})).statusCode).toBe(404);

    const { org: broke } = await connected();
    await seedWallet(t.db.sql, broke.organisationId, { balanceMinor: 0 });
    t.carrierA.offer('US', ['+14155550390']);
    expect((await post(broke, 'purchase', { phoneNumber: '+14155550390' })).statusCode).toBe(402);
  });
});
