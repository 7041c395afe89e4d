/**
 * What only carrier-a does on connect and sync (spec document 2): Parley's application on the account (made, found
 * again, corrected, remade), numbers pointed at it, subaccounts and trunks, one named phoneNumber, the service's own
 * account, managed numbers, pages that shift. Connect and sync as every carrier does them are in
 * telephony-carriers.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierAFake, type FakeCarrierAAccount } from './fakes/carriers/carrier-a-fake.ts';
import {
  CARRIER_A_HANGUP_URL,
  CARRIER_A_VOICE_URL,
  startTelephonyTestApp,
  type TelephonyTestApp,
} from './fakes/carriers/telephony-test-app.ts';
import { enableFeatures, seedAgent, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

/** The service's own main carrier-a account (PARLEY_CARRIER_A_SERVICE_AUTH_ID in these tests). */
const SERVICE_AUTH_ID = 'MASERVICE0ACC0UNT001';

let t: TelephonyTestApp;

beforeAll(async () => {
  // Pages of two numbers: every account below spans several pages.
  t = await startTelephonyTestApp({ carrierAPageSize: 2, carrierAServiceAuthId: SERVICE_AUTH_ID });
});
afterAll(() => t?.close());

async function telephonyOrg(name: string): Promise<SeededOrganisation> {
  const org = await seedOrganisation(t.db.sql, name);
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  return org;
}

const post = (org: SeededOrganisation, action: string, body: Record<string, unknown> = {}, key = org.key) =>
  t.call(key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-a/${action}`,
    payload: { organisationId: org.organisationId, ...body },
  });

const connect = (org: SeededOrganisation, body: Record<string, unknown> = {}) => post(org, 'connect', body);
const sync = (org: SeededOrganisation) => post(org, 'sync');

interface NumberView {
  id: string;
  phoneNumber: string;
  routingStatus: string;
  providerNumberId: string;
  friendlyName: string | null;
  metadata: Record<string, unknown>;
}

async function numbersOf(org: SeededOrganisation): Promise<Record<string, NumberView>> {
  const res = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}` });
  expect(res.statusCode, res.body).toBe(200);
  return Object.fromEntries((res.json().data as NumberView[]).map((n) => [n.phoneNumber, n]));
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

/** An account with `count` numbers on no application: `${prefix}0`, `${prefix}1`, … */
function accountWith(count: number, prefix: string): FakeCarrierAAccount {
  const account = t.carrierA.addAccount();
  for (let i = 0; i < count; i += 1) t.carrierA.addNumber(account.authId, `${prefix}${i}`);
  return account;
}

const credentials = (account: FakeCarrierAAccount) => ({ authId: account.authId, authToken: account.authToken });
const appOf = (account: FakeCarrierAAccount, phoneNumber: string) =>
  CarrierAFake.appIdOf(t.carrierA.number(account.authId, phoneNumber));
const parleyApp = (account: FakeCarrierAAccount) =>
  t.carrierA.applications(account.authId).filter((a) => a.app_name === 'parley-voice-agents');
const numberLists = (account: FakeCarrierAAccount) => (r: { method: string; path: string }) =>
  r.method === 'GET' && r.path === `/v1/Account/${account.authId}/Number/`;

describe('POST /telephony/carrier-a/connect', () => {
  it("imports every voice number of the main account on every page, creating Parley's application and pointing the numbers on none at it", async () => {
    const org = await telephonyOrg('Connect');
    const account = accountWith(3, '+1415555010');
    const other = t.carrierA.addApplication(account.authId, 'customer-ivr');
    t.carrierA.addNumber(account.authId, '+14155550190', { appId: other.app_id });
    t.carrierA.addNumber(account.authId, '+14155550191', { trunkId: '17248282830499840' });
    t.carrierA.addNumber(account.authId, '+14155550192', { voice: false });
    const subaccount = t.carrierA.addSubaccount(account.authId);
    t.carrierA.addNumber(account.authId, '+14155550193', { subaccount });

    const res = await connect(org, credentials(account));
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      reusedStoredCredentials: false,
      applicationCreated: true,
      remoteCount: 5,
      imported: 5,
      updated: 0,
      needsSetup: 2,
      skippedOtherProvider: 0,
      pointed: 3,
      skippedSubaccount: 1,
      deactivated: 0,
      complete: true,
      number: null,
    });
    const [app] = parleyApp(account);
    expect(app).toMatchObject({
      answer_url: CARRIER_A_VOICE_URL,
      answer_method: 'POST',
      hangup_url: CARRIER_A_HANGUP_URL,
      hangup_method: 'POST',
    });
    expect(data.integration.config).toMatchObject({ app_id: app!.app_id, app_name: 'parley-voice-agents' });

    const numbers = await numbersOf(org);
    expect(Object.keys(numbers).sort()).toEqual([
      '+14155550100',
      '+14155550101',
      '+14155550102',
      '+14155550190',
      '+14155550191',
    ]);
    for (const n of ['+14155550100', '+14155550101', '+14155550102']) {
      expect(numbers[n]!.routingStatus).toBe('READY');
      expect(appOf(account, n)).toBe(app!.app_id);
    }
    expect(numbers['+14155550100']).toMatchObject({
      providerNumberId: '14155550100',
      metadata: { source: 'import', type: 'local', region: 'California, UNITED STATES' },
    });
    // Another application's number and a trunk's are imported NEEDS_SETUP and left alone at the carrier.
    expect(numbers['+14155550190']!.routingStatus).toBe('NEEDS_SETUP');
    expect(appOf(account, '+14155550190')).toBe(other.app_id);
    expect(numbers['+14155550191']!.routingStatus).toBe('NEEDS_SETUP');
    expect(t.carrierA.number(account.authId, '+14155550191').object_type).toBe('trunk');
    // The subaccount's number is neither imported nor touched.
    expect(appOf(account, '+14155550193')).toBeNull();
    expect(t.carrierA.server.received((r) => r.method === 'POST' && r.path.endsWith('/Number/14155550193/'))).toEqual(
      [],
    );

    // Every page by limit/offset.
    const pages = t.carrierA.server.received(numberLists(account));
    expect(pages.map((p) => p.query.offset)).toEqual(['0', '2', '4', '6']);
  });

  it('with phoneNumber imports only that number and moves it across from another application at once', async () => {
    const org = await telephonyOrg('Named number');
    const account = accountWith(3, '+1415555020');
    const other = t.carrierA.addApplication(account.authId, 'old-ivr');
    t.carrierA.addNumber(account.authId, '+14155550290', { appId: other.app_id });

    const res = await connect(org, { ...credentials(account), phoneNumber: '+14155550290' });
    expect(res.statusCode, res.body).toBe(201);
    const [app] = parleyApp(account);
    expect(res.json().data).toMatchObject({
      imported: 1,
      needsSetup: 0,
      pointed: 1,
      deactivated: 0,
      complete: true,
      number: { phoneNumber: '+14155550290', provider: 'carrier-a', status: 'ACTIVE', routingStatus: 'READY' },
    });
    expect(appOf(account, '+14155550290')).toBe(app!.app_id);
    expect(Object.keys(await numbersOf(org))).toEqual(['+14155550290']);
    // The account's other numbers were neither read into Parley nor touched at the carrier.
    expect(t.carrierA.server.received(numberLists(account))).toEqual([]);
    expect(appOf(account, '+14155550200')).toBeNull();

    // A whole-account connect later brings the rest; a named connect never deactivates anything.
    expect((await connect(org)).json().data).toMatchObject({ imported: 3, updated: 1, reusedStoredCredentials: true });
    t.carrierA.removeNumber(account.authId, '+14155550200');
    const named = await connect(org, { phoneNumber: '+14155550201' });
    expect(named.json().data).toMatchObject({ updated: 1, deactivated: 0, pointed: 0 });
    expect(Object.keys(await numbersOf(org))).toHaveLength(4);
  });

  it('refuses a phoneNumber that is not a voice number of the main account with 400 naming the field, changing nothing', async () => {
    const org = await telephonyOrg('Named refused');
    const account = accountWith(1, '+1415555030');
    const subaccount = t.carrierA.addSubaccount(account.authId);
    t.carrierA.addNumber(account.authId, '+14155550390', { subaccount });
    t.carrierA.addNumber(account.authId, '+14155550391', { voice: false });
    for (const [phoneNumber, message] of [
      ['+14155550399', 'is not a number of this carrier-a account'],
      ['+14155550390', 'subaccount numbers are never imported'],
      ['+14155550391', 'voice is not enabled'],
    ] as const) {
      const res = await connect(org, { ...credentials(account), phoneNumber });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'phoneNumber', message: expect.stringContaining(message) }]);
    }
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
    expect(appOf(account, '+14155550390')).toBeNull();
  });

  it("reconnecting the same account keeps Parley's application and points only the numbers new to it", async () => {
    const org = await telephonyOrg('Reconnect');
    const account = accountWith(3, '+1415555040');
    const first = await connect(org, credentials(account));
    expect(first.statusCode, first.body).toBe(201);
    t.carrierA.addNumber(account.authId, '+14155550409');

    const res = await connect(org);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ reusedStoredCredentials: true, applicationCreated: false, pointed: 1 });
    expect(res.json().data.integration.config.app_id).toBe(first.json().data.integration.config.app_id);
    expect(parleyApp(account)).toHaveLength(1);
  });

  it('finds its application again by name when its id was never stored, and corrects its URLs', async () => {
    const org = await telephonyOrg('Application found');
    const account = accountWith(1, '+1415555045');
    // Left by a connect that failed after making it, and edited by hand since.
    const leftover = t.carrierA.addApplication(account.authId, 'parley-voice-agents', 'https://stale.example/answer');
    const res = await connect(org, credentials(account));
    expect(res.json().data).toMatchObject({
      applicationCreated: false,
      integration: { config: { app_id: leftover.app_id } },
    });
    expect(parleyApp(account)).toHaveLength(1);
    expect(leftover).toMatchObject({ answer_url: CARRIER_A_VOICE_URL, hangup_url: CARRIER_A_HANGUP_URL });
  });

  it('makes no application on an account whose credentials the carrier refuses', async () => {
    const org = await telephonyOrg('Bad token');
    const account = accountWith(1, '+1415555060');
    const res = await connect(org, { authId: account.authId, authToken: 'wrong-token' });
    expect(res.statusCode).toBe(400);
    expect(t.carrierA.applications(account.authId)).toEqual([]);
  });

  it("refuses the service's own main carrier-a account with 403 before asking the carrier anything", async () => {
    const org = await telephonyOrg('Service account');
    const asked = t.carrierA.server.requests.length;
    for (const authId of [SERVICE_AUTH_ID, SERVICE_AUTH_ID.toLowerCase()]) {
      const res = await connect(org, { authId, authToken: 'whatever-token' });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'forbidden',
        message: expect.stringContaining("service's own carrier-a account"),
      });
    }
    expect(t.carrierA.server.requests.length).toBe(asked);
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it("switching accounts makes Parley's application on the new one; a number assigned before was moved to the old one's", async () => {
    const org = await telephonyOrg('Switch');
    const first = accountWith(1, '+1415555080');
    const other = t.carrierA.addApplication(first.authId, 'customer-ivr');
    t.carrierA.addNumber(first.authId, '+14155550890', { appId: other.app_id });
    expect((await connect(org, credentials(first))).statusCode).toBe(201);

    // Assigning the NEEDS_SETUP number moves it to Parley's application at the carrier.
    const voice = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const numbers = await numbersOf(org);
    const path = `/api/v1/telephony/numbers/${numbers['+14155550890']!.id}/agent`;
    const assign = await t.call(org.key, {
      method: 'PUT',
      url: path,
      payload: { organisationId: org.organisationId, agentId: voice },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    expect(assign.json().data.routingStatus).toBe('ASSIGNED');
    expect(appOf(first, '+14155550890')).toBe(parleyApp(first)[0]!.app_id);
    await t.call(org.key, { method: 'DELETE', url: path, query: { organisationId: org.organisationId } });

    const second = accountWith(1, '+1415555081');
    const switched = await connect(org, credentials(second));
    expect(switched.statusCode, switched.body).toBe(201);
    expect(switched.json().data).toMatchObject({ applicationCreated: true, pointed: 1 });
    expect(switched.json().data.integration.config.app_id).toBe(parleyApp(second)[0]!.app_id);
  });
});

describe('POST /telephony/carrier-a/sync', () => {
  it("points new numbers at Parley's application, leaves other applications' alone and skips subaccounts", async () => {
    const org = await telephonyOrg('Sync');
    const account = accountWith(2, '+1415555110');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    const other = t.carrierA.addApplication(account.authId, 'customer-ivr');
    t.carrierA.addNumber(account.authId, '+14155551105', { appId: other.app_id });
    t.carrierA.addNumber(account.authId, '+14155551106');
    t.carrierA.addNumber(account.authId, '+14155551107', { subaccount: t.carrierA.addSubaccount(account.authId) });

    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      remoteCount: 4,
      needsSetup: 1,
      pointed: 1,
      skippedSubaccount: 1,
      appId: parleyApp(account)[0]!.app_id,
    });
    expect(Date.parse(data.syncedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(appOf(account, '+14155551105')).toBe(other.app_id);
    expect(appOf(account, '+14155551106')).toBe(data.appId);
    expect(appOf(account, '+14155551107')).toBeNull();
    expect(Object.keys(await numbersOf(org))).not.toContain('+14155551107');

    // A second sync has nothing left to point, and finds the NEEDS_SETUP number where it was.
    expect((await sync(org)).json().data).toMatchObject({
      imported: 0,
      updated: 4,
      needsSetup: 1,
      pointed: 0,
      deactivated: 0,
    });
  });

  it('makes sure the application exists: one deleted at the carrier is made again, its id stored, the numbers pointed back', async () => {
    const org = await telephonyOrg('App deleted');
    const account = accountWith(2, '+1415555120');
    const connected = await connect(org, credentials(account));
    const oldAppId = connected.json().data.integration.config.app_id as string;
    t.carrierA.removeApplication(account.authId, oldAppId);
    expect(appOf(account, '+14155551200')).toBeNull();

    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(200);
    const newAppId = res.json().data.appId as string;
    expect(newAppId).not.toBe(oldAppId);
    expect(res.json().data).toMatchObject({ pointed: 2, needsSetup: 0 });
    expect(appOf(account, '+14155551200')).toBe(newAppId);
    expect(appOf(account, '+14155551201')).toBe(newAppId);
    const [stored] = await t.db.sql<
      { config: Record<string, unknown> }[]
    >`select config from telephony_integrations where organisation_id = ${org.organisationId} and is_active`;
    expect(stored!.config.app_id).toBe(newAppId);
    const overview = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/overview/${org.organisationId}` });
    expect(overview.json().data.integrations[0].config).toMatchObject({
      app_id: newAppId,
      auth_id: 'configured',
      auth_token: 'configured',
    });

    // URLs changed by hand at the carrier are put back.
    parleyApp(account)[0]!.answer_url = 'https://hijacked.example/answer';
    expect((await sync(org)).statusCode).toBe(200);
    expect(parleyApp(account)[0]!.answer_url).toBe(CARRIER_A_VOICE_URL);
  });

  it('a read that lists fewer numbers than the carrier counts (the account changed while paging) deactivates nothing', async () => {
    const org = await telephonyOrg('Shifted pages');
    const account = accountWith(3, '+1415555140');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    // As if a number before offset 2 was released between pages: the last page comes back short of total_count.
    t.carrierA.server.fail((r) => numberLists(account)(r) && r.query.offset === '2', {
      status: 200,
      body: { api_id: 'x', meta: { limit: 2, next: null, offset: 2, previous: null, total_count: 3 }, objects: [] },
    });
    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ remoteCount: 2, deactivated: 0, complete: false });
    expect(Object.keys(await numbersOf(org))).toHaveLength(3);
  });

  it('answers 409 when the organisation gets managed numbers from the service itself, before anything else', async () => {
    const org = await telephonyOrg('Managed');
    const account = accountWith(1, '+1415555170');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    await enableFeatures(t.db.sql, org.organisationId, ['managed_numbers']);
    // Managed numbers are for organisations billed in India: elsewhere the flag alone changes nothing.
    expect((await sync(org)).statusCode).toBe(200);
    await t.db.sql`update organisations set billing_country = 'IN' where id = ${org.organisationId}`;
    const asked = t.carrierA.server.requests.length;
    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(`/telephony/managed/${org.organisationId}`),
    });
    expect(t.carrierA.server.requests.length).toBe(asked);

    const unconnected = await seedOrganisation(t.db.sql, 'Managed, nothing connected');
    await enableFeatures(t.db.sql, unconnected.organisationId, ['managed_numbers']);
    await t.db.sql`update organisations set billing_country = 'IN' where id = ${unconnected.organisationId}`;
    expect((await sync(unconnected)).statusCode).toBe(409);
  });
});
