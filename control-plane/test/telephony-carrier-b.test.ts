/**
 * What only carrier-b does (spec document 2): routing read from VoiceUrl/VoiceApplicationSid, paging by PageToken,
 * answering-machine detection (amd) on the account, search and purchase. Connect and sync as every carrier does them
 * are in telephony-carriers.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAccount } from './fakes/carriers/carrier-b-fake.ts';
import {
  CARRIER_B_VOICE_URL,
  startTelephonyTestApp,
  type TelephonyTestApp,
} from './fakes/carriers/telephony-test-app.ts';
import { enableFeatures, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';

let t: TelephonyTestApp;

beforeAll(async () => {
  // Pages of two numbers: every account below spans several pages.
  t = await startTelephonyTestApp({ carrierBPageSize: 2 });
});
afterAll(() => t?.close());

async function telephonyOrg(name: string, walletMinor: number | null = 1_000): Promise<SeededOrganisation> {
  const org = await seedOrganisation(t.db.sql, name);
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  if (walletMinor !== null) await seedWallet(t.db.sql, org.organisationId, { balanceMinor: walletMinor });
  return org;
}

const post = (org: SeededOrganisation, action: string, body: Record<string, unknown> = {}) =>
  t.call(org.key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-b/${action}`,
    payload: { organisationId: org.organisationId, ...body },
  });

const connect = (org: SeededOrganisation, body: Record<string, unknown> = {}) => post(org, 'connect', body);

async function numbersOf(
  org: SeededOrganisation,
): Promise<Record<string, { routingStatus: string; id: string; friendlyName: string }>> {
  const res = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}` });
  expect(res.statusCode, res.body).toBe(200);
  return Object.fromEntries(
    (res.json().data as { phoneNumber: string; routingStatus: string; id: string; friendlyName: string }[]).map((n) => [
      n.phoneNumber,
      n,
    ]),
  );
}

function accountWith(numbers: number, prefix: string): FakeAccount {
  const account = t.carrierB.addAccount();
  for (let i = 0; i < numbers; i += 1) t.carrierB.addNumber(account.accountSid, `${prefix}${i}`);
  return account;
}

describe('POST /telephony/carrier-b/connect', () => {
  it('reads routing from VoiceUrl and VoiceApplicationSid, follows next_page_uri with its PageToken, and connects without amd', async () => {
    // What every carrier does on connect (every page imported, credentials stored encrypted) is in telephony-carriers.test.ts.
    const org = await telephonyOrg('Connect');
    const account = accountWith(5, '+1415555010');
    t.carrierB.addNumber(account.accountSid, '+14155550199', { voice: false });
    t.carrierB.addNumber(account.accountSid, '+14155550198', { voiceUrl: 'https://elsewhere.example/voice' });
    t.carrierB.addNumber(account.accountSid, '+14155550197', { voiceApplicationSid: 'AP0123' });
    t.carrierB.addNumber(account.accountSid, '+14155550196', { voiceUrl: CARRIER_B_VOICE_URL });

    const res = await connect(org, { ...account });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ imported: 8, complete: true, integration: { config: { amd: false } } });
    const numbers = await numbersOf(org);
    expect(numbers['+14155550198']!.routingStatus).toBe('NEEDS_SETUP');
    expect(numbers['+14155550197']!.routingStatus).toBe('NEEDS_SETUP');
    expect(numbers['+14155550196']!.routingStatus).toBe('READY');

    // The adapter followed next_page_uri, tokens included.
    const pages = t.carrierB.server.received(
      (r) => r.path === `/2010-04-01/Accounts/${account.accountSid}/IncomingPhoneNumbers.json`,
    );
    expect(pages.map((p) => p.query.Page ?? '0')).toEqual(['0', '1', '2', '3', '4']);
    expect(pages.slice(1).every((p) => p.query.PageToken?.startsWith('PA'))).toBe(true);
  });

  it('keeps amd when reconnecting with the stored credentials, and takes a new value when one is sent', async () => {
    const org = await telephonyOrg('Reconnect');
    const account = accountWith(1, '+1415555020');
    expect((await connect(org, { ...account, amd: true })).statusCode).toBe(201);
    const res = await connect(org);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ reusedStoredCredentials: true, integration: { config: { amd: true } } });
    const again = await connect(org, { accountSid: account.accountSid, amd: false });
    expect(again.json().data).toMatchObject({ reusedStoredCredentials: true, integration: { config: { amd: false } } });
  });

  it('switching accounts does not carry amd over (a new account starts without it)', async () => {
    const org = await telephonyOrg('Switch');
    const first = accountWith(1, '+1415555070');
    expect((await connect(org, { ...first, label: 'Old', amd: true })).statusCode).toBe(201);
    const second = accountWith(1, '+1415555071');
    const switched = await connect(org, { ...second });
    expect(switched.statusCode, switched.body).toBe(201);
    expect(switched.json().data.integration.config).toMatchObject({ label: 'Old', amd: false });
  });
});

describe('POST /telephony/carrier-b/sync', () => {
  it('never deactivates a number bought while it was reading the account', async () => {
    const org = await telephonyOrg('Buy during sync');
    const account = accountWith(1, '+1415555094');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    const lists = (r: { method: string; path: string }) =>
      r.method === 'GET' && r.path === `/2010-04-01/Accounts/${account.accountSid}/IncomingPhoneNumbers.json`;
    // The sync's read shows the account as it was before the purchase.
    const hold = t.carrierB.server.hold(lists);
    t.carrierB.server.fail(lists, {
      status: 200,
      body: { incoming_phone_numbers: structuredClone(t.carrierB.numbers(account.accountSid)), next_page_uri: null },
    });
    const syncing = post(org, 'sync');
    await hold.reached;
    t.carrierB.offer('US', 'Local', '+14155550949');
    expect((await post(org, 'purchase', { phoneNumber: '+14155550949' })).statusCode).toBe(201);
    hold.release();
    const res = await syncing;
    expect(res.json().data).toMatchObject({ remoteCount: 1, deactivated: 0, complete: true });
    expect(Object.keys(await numbersOf(org)).sort()).toEqual(['+14155550940', '+14155550949']);
  });
});

describe('POST /telephony/carrier-b/search', () => {
  it('tries Local, then Mobile, then TollFree and returns the first type with results', async () => {
    const org = await telephonyOrg('Search');
    const account = accountWith(0, '');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    t.carrierB.offer('GB', 'Local', '+442079460100');
    t.carrierB.offer('GB', 'Mobile', '+447700900100', { locality: 'London', region: 'ENG' });
    const mobile = await post(org, 'search', { country: 'gb', contains: '7700' });
    expect(mobile.statusCode, mobile.body).toBe(200);
    expect(mobile.json().data).toEqual({
      country: 'GB',
      type: 'Mobile',
      numbers: [
        {
          phoneNumber: '+447700900100',
          friendlyName: '+447700900100',
          locality: 'London',
          region: 'ENG',
          capabilities: { voice: true, SMS: true, MMS: false },
        },
      ],
    });
    const asked = t.carrierB.server.received((r) => r.path.includes(`${account.accountSid}/AvailablePhoneNumbers/GB/`));
    expect(asked.map((r) => r.path.split('/').pop())).toEqual(['Local.json', 'Mobile.json']);
    expect(asked[0]!.query).toMatchObject({ Contains: '7700', VoiceEnabled: 'true', PageSize: '20' });

    const none = await post(org, 'search', { country: 'FR' });
    expect(none.json().data).toEqual({ country: 'FR', type: null, numbers: [] });
  });

  it('returns at most 20 numbers, from the US by default, filtered by area code', async () => {
    const org = await telephonyOrg('Search US');
    expect((await connect(org, { ...accountWith(0, '') })).statusCode).toBe(201);
    for (let i = 0; i < 25; i += 1) t.carrierB.offer('US', 'Local', `+1510555${String(1000 + i)}`);
    t.carrierB.offer('US', 'Local', '+16505550100');
    const res = await post(org, 'search', { areaCode: '510' });
    expect(res.json().data.type).toBe('Local');
    expect(res.json().data.numbers).toHaveLength(20);
    expect(res.json().data.numbers.every((n: { phoneNumber: string }) => n.phoneNumber.startsWith('+1510'))).toBe(true);
  });

  it('needs a funded wallet (402) and a connected account (404)', async () => {
    const unfunded = await telephonyOrg('Unfunded search', null);
    const noFunds = await post(unfunded, 'search');
    expect(noFunds.statusCode).toBe(402);
    expect(noFunds.json()).toMatchObject({ success: false, code: 'payment_required' });
    const low = await telephonyOrg('Low wallet', 99);
    expect((await post(low, 'search')).statusCode).toBe(402);
    const funded = await telephonyOrg('Not connected', 100);
    expect((await post(funded, 'search')).statusCode).toBe(404);
  });
});

describe('POST /telephony/carrier-b/purchase', () => {
  it('buys the number on the account with its voice webhook at Parley: ACTIVE, PURCHASED, no agent, wallet not debited', async () => {
    const org = await telephonyOrg('Purchase', 500);
    const account = accountWith(0, '');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    t.carrierB.offer('US', 'Local', '+14155550300');
    const res = await post(org, 'purchase', { phoneNumber: '+14155550300' });
    expect(res.statusCode, res.body).toBe(201);
    const number = res.json().data;
    expect(number).toMatchObject({
      organisationId: org.organisationId,
      provider: 'carrier-b',
      phoneNumber: '+14155550300',
      status: 'ACTIVE',
      routingStatus: 'PURCHASED',
      agentId: null,
      agent: null,
      assignedAgents: [],
      outboundAgents: [],
      metadata: { source: 'purchase' },
    });
    expect(number.providerNumberId).toMatch(/^PN/);
    const [bought] = t.carrierB.numbers(account.accountSid);
    expect(bought).toMatchObject({
      phone_number: '+14155550300',
      voice_url: CARRIER_B_VOICE_URL,
      voice_method: 'POST',
    });
    const [wallet] = await t.db
      .sql`select balance as balance_minor from ledger_accounts where organisation_id = ${org.organisationId} and kind = 'WALLET'`;
    expect(Number(wallet!.balance_minor)).toBe(500);

    // Already on the account, so a sync keeps it, PURCHASED.
    const sync = await post(org, 'sync');
    expect(sync.json().data).toMatchObject({ remoteCount: 1, updated: 1, deactivated: 0 });
    expect((await numbersOf(org))['+14155550300']!.routingStatus).toBe('PURCHASED');
  });

  it('answers 400 when the carrier refuses, 402 below the minimum balance, 404 without an account', async () => {
    const org = await telephonyOrg('Purchase refused');
    expect((await connect(org, { ...accountWith(0, '') })).statusCode).toBe(201);
    const gone = await post(org, 'purchase', { phoneNumber: '+14155550399' });
    expect(gone.statusCode).toBe(400);
    expect(gone.json()).toMatchObject({ code: 'carrier_rejected', message: expect.stringContaining('not available') });
    expect(await numbersOf(org)).toEqual({});

    const poor = await telephonyOrg('Purchase unfunded', 0);
    expect((await post(poor, 'purchase', { phoneNumber: '+14155550398' })).statusCode).toBe(402);
    const unconnected = await telephonyOrg('Purchase unconnected');
    expect((await post(unconnected, 'purchase', { phoneNumber: '+14155550397' })).statusCode).toBe(404);
    const malformed = await post(unconnected, 'purchase', { phoneNumber: '0415 555 0397' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors).toEqual([{ field: 'phoneNumber', message: expect.stringContaining('must match') }]);
  });
});
