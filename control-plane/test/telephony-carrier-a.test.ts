/** carrier-a connect and sync against the carrier's contract fake (spec document 2, Telephony and phone numbers). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApiKey } from '../src/auth/api-key-repository.ts';
import type { Scope } from '../src/auth/scopes.ts';
import { CarrierAFake, carrierAError, type FakeCarrierAAccount } from './fakes/carriers/carrier-a-fake.ts';
import {
  CARRIER_A_HANGUP_URL,
  CARRIER_A_VOICE_URL,
  startTelephonyTestApp,
  type TelephonyTestApp,
} from './fakes/carriers/telephony-test-app.ts';
import {
  enableFeatures,
  seedAgent,
  seedOrganisation,
  seedPhoneNumber,
  type SeededOrganisation,
} from './support/seed.ts';

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

async function keyWith(org: SeededOrganisation, scopes: readonly Scope[]): Promise<string> {
  return (
    await insertApiKey(t.db.sql, {
      organisationId: org.organisationId,
      userId: org.ownerId,
      name: scopes.join(' '),
      scopes,
    })
  ).key;
}

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
    expect(data.integration).toMatchObject({
      organisationId: org.organisationId,
      provider: 'carrier-a',
      isActive: true,
      config: {
        label: 'carrier-a account',
        auth_id: 'configured',
        auth_token: 'configured',
        app_id: app!.app_id,
        app_name: 'parley-voice-agents',
      },
    });
    expect(typeof data.integration.config.connected_at).toBe('string');
    expect(res.body).not.toContain(account.authToken);
    expect(res.body).not.toContain(account.authId);

    const [stored] = await t.db.sql<{ secrets: Record<string, string>; account_ref: string }[]>`
      select secrets, account_ref from telephony_integrations where organisation_id = ${org.organisationId}`;
    expect(stored!.account_ref).toBe(account.authId);
    expect(Object.keys(stored!.secrets).sort()).toEqual(['auth_id', 'auth_token']);
    for (const value of Object.values(stored!.secrets)) expect(value).toMatch(/^enc:v1:test:/);
    expect(JSON.stringify(stored!.secrets)).not.toContain(account.authToken);

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

    // Every page by limit/offset, the account's credentials on every request.
    const pages = t.carrierA.server.received(numberLists(account));
    expect(pages.map((p) => p.query.offset)).toEqual(['0', '2', '4', '6']);
    const mine = t.carrierA.server.received((r) => r.path.startsWith(`/v1/Account/${account.authId}/`));
    expect(mine.every((r) => r.basicAuth?.user === account.authId && r.basicAuth.password === account.authToken)).toBe(
      true,
    );
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

  it('reconnects the same account with the stored credentials: label and application kept, present numbers refreshed, gone ones deactivated', async () => {
    const org = await telephonyOrg('Reconnect');
    const account = accountWith(3, '+1415555040');
    const first = await connect(org, { ...credentials(account), label: 'Main line' });
    expect(first.statusCode, first.body).toBe(201);

    t.carrierA.removeNumber(account.authId, '+14155550400');
    t.carrierA.addNumber(account.authId, '+14155550409');
    t.carrierA.number(account.authId, '+14155550401').alias = 'Front desk';

    const res = await connect(org);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      reusedStoredCredentials: true,
      applicationCreated: false,
      imported: 1,
      updated: 2,
      deactivated: 1,
      pointed: 1,
      complete: true,
    });
    expect(res.json().data.integration.config).toMatchObject({
      label: 'Main line',
      app_id: first.json().data.integration.config.app_id,
    });
    expect(parleyApp(account)).toHaveLength(1);
    const numbers = await numbersOf(org);
    expect(Object.keys(numbers).sort()).toEqual(['+14155550401', '+14155550402', '+14155550409']);
    expect(numbers['+14155550401']!.friendlyName).toBe('Front desk');

    // Naming the same account without a token also reuses (in any letter case); a new label replaces the old one.
    const again = await connect(org, { authId: account.authId.toLowerCase(), label: 'Renamed line' });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data).toMatchObject({
      reusedStoredCredentials: true,
      integration: { config: { label: 'Renamed line' } },
    });
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

  it('needs credentials: none stored, or a different authId without its own authToken, is 400 and changes nothing', async () => {
    const org = await telephonyOrg('No credentials');
    const none = await connect(org);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ success: false, code: 'credentials_required' });

    const first = accountWith(1, '+1415555050');
    expect((await connect(org, credentials(first))).statusCode).toBe(201);
    const second = accountWith(1, '+1415555051');
    const before = await telephonyState(org);
    const tokenless = await connect(org, { authId: second.authId });
    expect(tokenless.statusCode).toBe(400);
    expect(tokenless.json().code).toBe('credentials_required');
    expect(await telephonyState(org)).toEqual(before);
  });

  it("answers 400 with the carrier's words when it refuses the credentials, storing nothing", async () => {
    const org = await telephonyOrg('Bad token');
    const account = accountWith(1, '+1415555060');
    const res = await connect(org, { authId: account.authId, authToken: 'wrong-token' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'carrier_rejected',
      message: expect.stringContaining('authentication failed'),
    });
    expect(res.body).not.toContain('wrong-token');
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
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

  it('answers 502 when the carrier fails, and 403 when self-serve telephony is off', async () => {
    const org = await telephonyOrg('Carrier down');
    const account = accountWith(1, '+1415555070');
    t.carrierA.server.fail((r) => r.path.includes(account.authId), carrierAError(500, 'internal error'));
    const down = await connect(org, credentials(account));
    expect(down.statusCode).toBe(502);
    expect(down.json().code).toBe('upstream_failed');
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });

    const off = await seedOrganisation(t.db.sql, 'Feature off');
    const refused = await connect(off, credentials(account));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('feature_disabled');
  });

  it('switching accounts retires the old numbers; refused with 409 while an agent answers on or dials out from one', async () => {
    const org = await telephonyOrg('Switch');
    const first = accountWith(2, '+1415555080');
    const other = t.carrierA.addApplication(first.authId, 'customer-ivr');
    t.carrierA.addNumber(first.authId, '+14155550890', { appId: other.app_id });
    expect((await connect(org, { ...credentials(first), label: 'Old' })).statusCode).toBe(201);
    const second = accountWith(3, '+1415555081');

    // Assigning the NEEDS_SETUP number moves it to Parley's application at the carrier.
    const voice = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const numbers = await numbersOf(org);
    const assign = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/telephony/numbers/${numbers['+14155550890']!.id}/agent`,
      payload: { organisationId: org.organisationId, agentId: voice },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    expect(assign.json().data.routingStatus).toBe('ASSIGNED');
    expect(appOf(first, '+14155550890')).toBe(parleyApp(first)[0]!.app_id);
    const dialler = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await t.db
      .sql`update agents set calling_number = '+14155550801', telephony_provider = 'carrier-a' where id = ${dialler}`;

    const before = await telephonyState(org);
    const refused = await connect(org, credentials(second));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'numbers_in_use',
      message: expect.stringContaining('answers on +14155550890'),
    });
    expect(refused.json().message).toContain('dials out from +14155550801');
    expect(await telephonyState(org)).toEqual(before);
    expect(t.carrierA.server.received((r) => r.path.startsWith(`/v1/Account/${second.authId}/`))).toEqual([]);

    await t.call(org.key, {
      method: 'DELETE',
      url: `/api/v1/telephony/numbers/${numbers['+14155550890']!.id}/agent`,
      query: { organisationId: org.organisationId },
    });
    await t.db.sql`update agents set calling_number = null where id = ${dialler}`;
    const switched = await connect(org, credentials(second));
    expect(switched.statusCode, switched.body).toBe(201);
    expect(switched.json().data).toMatchObject({
      reusedStoredCredentials: false,
      applicationCreated: true,
      imported: 3,
      deactivated: 3,
    });
    expect(switched.json().data.integration.config).toMatchObject({
      label: 'Old',
      app_id: parleyApp(second)[0]!.app_id,
    });
    expect(Object.keys(await numbersOf(org)).sort()).toEqual(['+14155550810', '+14155550811', '+14155550812']);
    const integrations = await t.db
      .sql`select account_ref, is_active from telephony_integrations where organisation_id = ${org.organisationId} order by created_at, id`;
    expect(integrations.map((i) => [i.account_ref, i.is_active])).toEqual([
      [first.authId, false],
      [second.authId, true],
    ]);
  });

  it('a connect whose later page fails imports what it read and deactivates nothing', async () => {
    const org = await telephonyOrg('Partial connect');
    const account = accountWith(5, '+1415555090');
    t.carrierA.server.fail(
      (r) => numberLists(account)(r) && r.query.offset === '2',
      carrierAError(500, 'internal error'),
    );
    const res = await connect(org, credentials(account));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ remoteCount: 2, imported: 2, deactivated: 0, complete: false });
    const [integration] = await t.db
      .sql`select last_synced_at from telephony_integrations where organisation_id = ${org.organisationId}`;
    expect(integration!.last_synced_at).toBeNull();
  });
});

describe('POST /telephony/carrier-a/sync', () => {
  it('imports new, refreshes present and deactivates gone numbers; other applications stay NEEDS_SETUP, subaccounts are skipped', async () => {
    const org = await telephonyOrg('Sync');
    const account = accountWith(3, '+1415555110');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-b', phoneNumber: '+14155551199' });
    t.carrierA.addNumber(account.authId, '+14155551199');
    const other = t.carrierA.addApplication(account.authId, 'customer-ivr');
    t.carrierA.addNumber(account.authId, '+14155551105', { appId: other.app_id });
    t.carrierA.addNumber(account.authId, '+14155551106');
    t.carrierA.addNumber(account.authId, '+14155551107', { subaccount: t.carrierA.addSubaccount(account.authId) });
    t.carrierA.removeNumber(account.authId, '+14155551102');

    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      remoteCount: 5,
      imported: 2,
      updated: 2,
      needsSetup: 1,
      skippedOtherProvider: 1,
      deactivated: 1,
      complete: true,
      pointed: 2,
      skippedSubaccount: 1,
      appId: parleyApp(account)[0]!.app_id,
    });
    expect(Date.parse(data.syncedAt)).toBeGreaterThan(Date.now() - 60_000);
    const numbers = await numbersOf(org);
    expect(Object.keys(numbers).sort()).toEqual([
      '+14155551100',
      '+14155551101',
      '+14155551105',
      '+14155551106',
      '+14155551199',
    ]);
    expect(numbers['+14155551105']!.routingStatus).toBe('NEEDS_SETUP');
    expect(appOf(account, '+14155551105')).toBe(other.app_id);
    expect(numbers['+14155551106']!.routingStatus).toBe('READY');
    expect(appOf(account, '+14155551106')).toBe(data.appId);
    const [otherProvider] = await t.db
      .sql`select provider from phone_numbers where phone_number = '+14155551199' and organisation_id = ${org.organisationId}`;
    expect(otherProvider!.provider).toBe('carrier-b');

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

  it('a sync whose second page fails deactivates nothing; the next whole read settles it', async () => {
    const org = await telephonyOrg('Partial sync');
    const account = accountWith(4, '+1415555130');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    t.carrierA.removeNumber(account.authId, '+14155551302');
    t.carrierA.removeNumber(account.authId, '+14155551303');
    t.carrierA.addNumber(account.authId, '+14155551304');
    t.carrierA.server.fail(
      (r) => numberLists(account)(r) && r.query.offset === '2',
      carrierAError(500, 'internal error'),
    );
    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ remoteCount: 2, updated: 2, deactivated: 0, complete: false });
    expect(Object.keys(await numbersOf(org))).toHaveLength(4);

    const full = await sync(org);
    expect(full.json().data).toMatchObject({ imported: 1, deactivated: 2, complete: true });
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

  it("never follows a meta.next off the account's own list", async () => {
    const org = await telephonyOrg('Bad page link');
    const account = accountWith(1, '+1415555150');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    t.carrierA.server.fail(numberLists(account), {
      status: 200,
      body: {
        api_id: 'x',
        meta: { limit: 2, next: '//evil.example/steal', offset: 0, previous: null, total_count: 9 },
        objects: [],
      },
    });
    const res = await sync(org);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ remoteCount: 0, deactivated: 0, complete: false });
    expect(t.carrierA.server.received((r) => r.path.includes('evil'))).toEqual([]);
  });

  it('answers 404 without a connected account, 400 when the stored credentials are refused', async () => {
    const org = await telephonyOrg('Unsynced');
    const missing = await sync(org);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toContain('No carrier-a account is connected');
    const account = accountWith(1, '+1415555160');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    t.carrierA.server.fail((r) => r.path.includes(account.authId), carrierAError(401, 'authentication failed'));
    const refused = await sync(org);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('carrier_rejected');
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

  it('is one change at a time: a connect while a sync of the account runs is 409 and changes nothing', async () => {
    const org = await telephonyOrg('Busy');
    const account = accountWith(2, '+1415555180');
    expect((await connect(org, credentials(account))).statusCode).toBe(201);
    const hold = t.carrierA.server.hold(numberLists(account));
    const syncing = sync(org);
    await hold.reached;
    const before = await t.db
      .sql`select * from phone_numbers where organisation_id = ${org.organisationId} order by id`;
    const busy = await connect(org);
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ code: 'change_in_progress', message: expect.stringContaining('A sync') });
    expect(
      await t.db.sql`select * from phone_numbers where organisation_id = ${org.organisationId} order by id`,
    ).toEqual(before);
    hold.release();
    expect((await syncing).statusCode).toBe(200);
    expect((await connect(org)).statusCode).toBe(201);
  });
});

describe('scopes', () => {
  it("another organisation's id in the body is 403", async () => {
    const org = await telephonyOrg('Own org');
    const stranger = await telephonyOrg('Stranger');
    const res = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/telephony/carrier-a/sync',
      payload: { organisationId: stranger.organisationId },
    });
    expect(res.statusCode).toBe(403);
  });

  it('connect and sync need numbers:write', async () => {
    const org = await telephonyOrg('Scopes');
    const account = accountWith(1, '+1415555190');
    const reader = await keyWith(org, ['numbers:read']);
    for (const action of ['connect', 'sync']) {
      const res = await post(org, action, action === 'connect' ? credentials(account) : {}, reader);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('insufficient_scope');
    }
    const writer = await keyWith(org, ['numbers:write']);
    expect((await post(org, 'connect', credentials(account), writer)).statusCode).toBe(201);
    expect((await post(org, 'sync', {}, writer)).statusCode).toBe(200);
  });
});
