/** carrier-b connect, search, purchase and sync against the carrier's contract fake (spec document 2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierBError, type FakeAccount } from './fakes/carriers/carrier-b-fake.ts';
import {
  CARRIER_B_VOICE_URL,
  startTelephonyTestApp,
  type TelephonyTestApp,
} from './fakes/carriers/telephony-test-app.ts';
import {
  enableFeatures,
  seedAgent,
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
  type SeededOrganisation,
} from './support/seed.ts';

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

/** Every row of the organisation's telephony tables, to prove a refused request changed nothing. */
async function telephonyState(org: SeededOrganisation): Promise<unknown> {
  const sql = t.db.sql;
  return {
    integrations:
      await sql`select * from telephony_integrations where organisation_id = ${org.organisationId} order by id`,
    numbers: await sql`select * from phone_numbers where organisation_id = ${org.organisationId} order by id`,
    changes: await sql`select * from telephony_changes where organisation_id = ${org.organisationId}`,
  };
}

function accountWith(numbers: number, prefix: string): FakeAccount {
  const account = t.carrierB.addAccount();
  for (let i = 0; i < numbers; i += 1) t.carrierB.addNumber(account.accountSid, `${prefix}${i}`);
  return account;
}

describe('POST /telephony/carrier-b/connect', () => {
  it('imports every voice number on every page, stores the credentials encrypted and returns them only as "configured"', async () => {
    const org = await telephonyOrg('Connect');
    const account = accountWith(5, '+1415555010');
    t.carrierB.addNumber(account.accountSid, '+14155550199', { voice: false });
    t.carrierB.addNumber(account.accountSid, '+14155550198', { voiceUrl: 'https://elsewhere.example/voice' });
    t.carrierB.addNumber(account.accountSid, '+14155550197', { voiceApplicationSid: 'AP0123' });
    t.carrierB.addNumber(account.accountSid, '+14155550196', { voiceUrl: CARRIER_B_VOICE_URL });

    const res = await connect(org, { ...account });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      reusedStoredCredentials: false,
      imported: 8,
      updated: 0,
      deactivated: 0,
      complete: true,
    });
    expect(data.integration).toMatchObject({
      organisationId: org.organisationId,
      provider: 'carrier-b',
      isActive: true,
      config: { label: 'carrier-b account', amd: false, account_sid: 'configured', auth_token: 'configured' },
    });
    expect(typeof data.integration.config.connected_at).toBe('string');
    expect(res.body).not.toContain(account.authToken);
    expect(res.body).not.toContain(account.accountSid);

    const [stored] = await t.db.sql<{ secrets: Record<string, string>; account_ref: string }[]>`
      select secrets, account_ref from telephony_integrations where organisation_id = ${org.organisationId}`;
    expect(Object.keys(stored!.secrets).sort()).toEqual(['account_sid', 'auth_token']);
    for (const value of Object.values(stored!.secrets)) expect(value).toMatch(/^enc:v1:test:/);
    expect(JSON.stringify(stored!.secrets)).not.toContain(account.authToken);

    const numbers = await numbersOf(org);
    expect(Object.keys(numbers)).toHaveLength(8);
    expect(numbers['+14155550199']).toBeUndefined();
    expect(numbers['+14155550100']!.routingStatus).toBe('READY');
    expect(numbers['+14155550198']!.routingStatus).toBe('NEEDS_SETUP');
    expect(numbers['+14155550197']!.routingStatus).toBe('NEEDS_SETUP');
    expect(numbers['+14155550196']!.routingStatus).toBe('READY');

    // The adapter followed next_page_uri, tokens included, with the account's credentials on every page.
    const pages = t.carrierB.server.received(
      (r) => r.path === `/2010-04-01/Accounts/${account.accountSid}/IncomingPhoneNumbers.json`,
    );
    expect(pages.map((p) => p.query.Page ?? '0')).toEqual(['0', '1', '2', '3', '4']);
    expect(pages.slice(1).every((p) => p.query.PageToken?.startsWith('PA'))).toBe(true);
    expect(
      pages.every((p) => p.basicAuth?.user === account.accountSid && p.basicAuth.password === account.authToken),
    ).toBe(true);
  });

  it('reconnects the same account with the stored credentials: label and amd kept, present numbers refreshed, gone ones deactivated', async () => {
    const org = await telephonyOrg('Reconnect');
    const account = accountWith(3, '+1415555020');
    expect((await connect(org, { ...account, label: 'Main line', amd: true })).statusCode).toBe(201);

    t.carrierB.removeNumber(account.accountSid, '+14155550200');
    t.carrierB.addNumber(account.accountSid, '+14155550209');
    t.carrierB.numbers(account.accountSid).find((n) => n.phone_number === '+14155550201')!.friendly_name = 'Renamed';

    const res = await connect(org);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      reusedStoredCredentials: true,
      imported: 1,
      updated: 2,
      deactivated: 1,
      complete: true,
    });
    expect(res.json().data.integration.config).toMatchObject({ label: 'Main line', amd: true });
    const numbers = await numbersOf(org);
    expect(Object.keys(numbers).sort()).toEqual(['+14155550201', '+14155550202', '+14155550209']);
    expect(numbers['+14155550201']!.friendlyName).toBe('Renamed');

    // Naming the same account without a token also reuses; a new label and amd replace the old ones.
    const again = await connect(org, { accountSid: account.accountSid, label: 'Renamed line', amd: false });
    expect(again.json().data).toMatchObject({
      reusedStoredCredentials: true,
      integration: { config: { label: 'Renamed line', amd: false } },
    });
  });

  it('refuses missing credentials with 400 and changes nothing', async () => {
    const org = await telephonyOrg('No credentials');
    const none = await connect(org);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ success: false, code: 'credentials_required' });

    const account = accountWith(1, '+1415555030');
    const tokenless = await connect(org, { accountSid: account.accountSid });
    expect(tokenless.statusCode).toBe(400);
    expect(tokenless.json().code).toBe('credentials_required');
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it('needs its own authToken for a different accountSid', async () => {
    const org = await telephonyOrg('Other account');
    const first = accountWith(1, '+1415555040');
    expect((await connect(org, { ...first })).statusCode).toBe(201);
    const second = accountWith(1, '+1415555041');
    const before = await telephonyState(org);
    const res = await connect(org, { accountSid: second.accountSid });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('credentials_required');
    expect(await telephonyState(org)).toEqual(before);
  });

  it("answers 400 with the carrier's words when it refuses the credentials, storing nothing", async () => {
    const org = await telephonyOrg('Bad token');
    const account = accountWith(1, '+1415555050');
    const res = await connect(org, { accountSid: account.accountSid, authToken: 'wrong-token' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'carrier_rejected', message: expect.stringContaining('Authenticate') });
    expect(res.body).not.toContain('wrong-token');
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it('answers 502 when the carrier fails, and 403 when self-serve telephony is off', async () => {
    const org = await telephonyOrg('Carrier down');
    const account = accountWith(1, '+1415555060');
    t.carrierB.server.fail(
      (r) => r.path.includes(account.accountSid),
      carrierBError(503, 20503, 'Service Unavailable'),
    );
    const down = await connect(org, { ...account });
    expect(down.statusCode).toBe(502);
    expect(down.json().code).toBe('upstream_failed');
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });

    const off = await seedOrganisation(t.db.sql, 'Feature off');
    const refused = await connect(off, { ...account });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('feature_disabled');
  });

  it('switching accounts retires the old numbers; refused with 409 while an agent answers on or dials out from one', async () => {
    const org = await telephonyOrg('Switch');
    const first = accountWith(2, '+1415555070');
    expect((await connect(org, { ...first, label: 'Old', amd: true })).statusCode).toBe(201);
    const second = accountWith(3, '+1415555071');

    const voice = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const numbers = await numbersOf(org);
    const assign = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/telephony/numbers/${numbers['+14155550700']!.id}/agent`,
      payload: { organisationId: org.organisationId, agentId: voice },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    const dialler = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await t.db
      .sql`update agents set calling_number = '+14155550701', telephony_provider = 'carrier-b' where id = ${dialler}`;

    const before = await telephonyState(org);
    const refused = await connect(org, { ...second });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'numbers_in_use', message: expect.stringContaining('+14155550700') });
    expect(refused.json().message).toContain('dials out from +14155550701');
    expect(await telephonyState(org)).toEqual(before);

    await t.call(org.key, {
      method: 'DELETE',
      url: `/api/v1/telephony/numbers/${numbers['+14155550700']!.id}/agent`,
      query: { organisationId: org.organisationId },
    });
    await t.db.sql`update agents set calling_number = null where id = ${dialler}`;
    const switched = await connect(org, { ...second });
    expect(switched.statusCode, switched.body).toBe(201);
    expect(switched.json().data).toMatchObject({ reusedStoredCredentials: false, imported: 3, deactivated: 2 });
    // The label carries over; amd does not (a new account starts without it).
    expect(switched.json().data.integration.config).toMatchObject({ label: 'Old', amd: false });
    expect(Object.keys(await numbersOf(org)).sort()).toEqual(['+14155550710', '+14155550711', '+14155550712']);
    const integrations = await t.db
      .sql`select account_ref, is_active from telephony_integrations where organisation_id = ${org.organisationId} order by created_at, id`;
    expect(integrations.map((i) => [i.account_ref, i.is_active])).toEqual([
      [first.accountSid, false],
      [second.accountSid, true],
    ]);
  });

  it('a connect whose later page fails imports what it read and deactivates nothing', async () => {
    const org = await telephonyOrg('Partial connect');
    const account = accountWith(5, '+1415555080');
    t.carrierB.server.fail(
      (r) => r.path.includes(account.accountSid) && r.query.Page === '1',
      carrierBError(500, 20500, 'Internal Server Error'),
    );
    const res = await connect(org, { ...account });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ imported: 2, deactivated: 0, complete: false });
  });
});

describe('POST /telephony/carrier-b/sync', () => {
  it('imports new, refreshes present and deactivates gone numbers, counting each kind', async () => {
    const org = await telephonyOrg('Sync');
    const account = accountWith(3, '+1415555090');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-a', phoneNumber: '+14155550999' });
    t.carrierB.addNumber(account.accountSid, '+14155550999');
    t.carrierB.addNumber(account.accountSid, '+14155550905', { voiceUrl: 'https://elsewhere.example/voice' });
    t.carrierB.removeNumber(account.accountSid, '+14155550902');

    const res = await post(org, 'sync');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      remoteCount: 4,
      imported: 1,
      updated: 2,
      needsSetup: 1,
      skippedOtherProvider: 1,
      deactivated: 1,
      complete: true,
    });
    expect(Date.parse(data.syncedAt)).toBeGreaterThan(Date.now() - 60_000);
    const numbers = await numbersOf(org);
    expect(Object.keys(numbers).sort()).toEqual(['+14155550900', '+14155550901', '+14155550905', '+14155550999']);
    expect(numbers['+14155550905']!.routingStatus).toBe('NEEDS_SETUP');
    const [other] = await t.db
      .sql`select provider from phone_numbers where phone_number = '+14155550999' and organisation_id = ${org.organisationId}`;
    expect(other!.provider).toBe('carrier-a');
  });

  it('a sync whose second page fails deactivates nothing', async () => {
    const org = await telephonyOrg('Partial sync');
    const account = accountWith(4, '+1415555091');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    // Every number after the first page is gone, but the sync cannot know it: page two fails.
    t.carrierB.removeNumber(account.accountSid, '+14155550912');
    t.carrierB.removeNumber(account.accountSid, '+14155550913');
    t.carrierB.addNumber(account.accountSid, '+14155550914');
    t.carrierB.server.fail(
      (r) => r.path.includes(account.accountSid) && r.query.Page === '1',
      carrierBError(500, 20500, 'Internal Server Error'),
    );
    const res = await post(org, 'sync');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ remoteCount: 2, updated: 2, deactivated: 0, complete: false });
    expect(Object.keys(await numbersOf(org)).sort()).toEqual([
      '+14155550910',
      '+14155550911',
      '+14155550912',
      '+14155550913',
    ]);

    // The next whole read settles it.
    const full = await post(org, 'sync');
    expect(full.json().data).toMatchObject({ imported: 1, deactivated: 2, complete: true });
  });

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

  it("never follows a next_page_uri off the account's own list", async () => {
    const org = await telephonyOrg('Bad page link');
    const account = accountWith(1, '+1415555092');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    t.carrierB.server.fail((r) => r.path.includes(account.accountSid) && r.method === 'GET', {
      status: 200,
      body: { incoming_phone_numbers: [], next_page_uri: '//evil.example/steal' },
    });
    const res = await post(org, 'sync');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ remoteCount: 0, deactivated: 0, complete: false });
  });

  it('answers 404 without a connected account, 400 when the stored credentials are refused', async () => {
    const org = await telephonyOrg('Unsynced');
    expect((await post(org, 'sync')).statusCode).toBe(404);
    const account = accountWith(1, '+1415555093');
    expect((await connect(org, { ...account })).statusCode).toBe(201);
    t.carrierB.server.fail((r) => r.path.includes(account.accountSid), carrierBError(401, 20003, 'Authenticate'));
    const refused = await post(org, 'sync');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('carrier_rejected');
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
      .sql`select balance_minor from wallet_balances where organisation_id = ${org.organisationId}`;
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
