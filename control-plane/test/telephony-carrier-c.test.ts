/**
 * What only carrier-c does on connect and sync (spec document 2): its two regional hosts, the flow (appId) numbers
 * are routed to and the routing recorded on each, the funded wallet, its rate limit and error shapes, the spec's
 * `synced` counts, a reconnect that replaces every credential. Connect and sync as every carrier does them are in
 * telephony-carriers.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierCClient, flowVoiceUrl, regionalBaseUrl } from '../src/carriers/carrier-c/api.ts';
import { CarrierError } from '../src/telephony/carrier.ts';
import { carrierCError, type FakeCarrierCAccount, type FakeExoPhone } from './fakes/carriers/carrier-c-fake.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
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
  t = await startTelephonyTestApp({ carrierCPageSize: 2 });
});
afterAll(() => t?.close());

async function telephonyOrg(name: string, walletMinor: number | null = 1_000): Promise<SeededOrganisation> {
  const org = await seedOrganisation(t.db.sql, name);
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  if (walletMinor !== null) await seedWallet(t.db.sql, org.organisationId, { balanceMinor: walletMinor });
  return org;
}

const post = (org: SeededOrganisation, action: string, body: Record<string, unknown> = {}, key = org.key) =>
  t.call(key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-c/${action}`,
    payload: { organisationId: org.organisationId, ...body },
  });

/** The connect body of a fake account: its credentials, flow and region. */
const credentialsOf = (account: FakeCarrierCAccount) => ({
  accountSid: account.accountSid,
  apiKey: account.apiKey,
  apiToken: account.apiToken,
  appId: account.appId,
  subdomain: account.region,
});

const connect = (org: SeededOrganisation, body: Record<string, unknown>) => post(org, 'connect', body);

interface NumberRecord {
  id: string;
  phoneNumber: string;
  routingStatus: string;
  providerNumberId: string;
  friendlyName: string;
  metadata: Record<string, unknown> & {
    routing?: { status: string; appId: string; voiceUrl: string; reason?: string };
  };
}

async function numbersOf(org: SeededOrganisation): Promise<Record<string, NumberRecord>> {
  const res = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}` });
  expect(res.statusCode, res.body).toBe(200);
  return Object.fromEntries((res.json().data as NumberRecord[]).map((n) => [n.phoneNumber, n]));
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

function accountWith(numbers: number, prefix: string, region?: FakeCarrierCAccount['region']): FakeCarrierCAccount {
  const account = t.carrierC.addAccount(region);
  for (let i = 0; i < numbers; i += 1) t.carrierC.addNumber(account.accountSid, `${prefix}${i}`);
  return account;
}

const onAccount = (account: FakeCarrierCAccount) => (r: { path: string }) =>
  r.path.includes(`/Accounts/${account.accountSid}/`) || r.path.endsWith(`/Accounts/${account.accountSid}`);
const lists = (account: FakeCarrierCAccount) => (r: { method: string; path: string }) =>
  r.method === 'GET' && r.path.endsWith(`/v2_beta/Accounts/${account.accountSid}/IncomingPhoneNumbers`);
const voiceUrlOf = (account: FakeCarrierCAccount, appId = account.appId) => flowVoiceUrl(account.accountSid, appId);

describe('POST /telephony/carrier-c/connect', () => {
  it('points unrouted voice numbers at the appId flow, records the routing of each and counts what the carrier listed', async () => {
    const org = await telephonyOrg('Connect');
    const account = accountWith(3, '+91804711000');
    t.carrierC.addNumber(account.accountSid, '+918047110099', { voice: false });
    t.carrierC.addNumber(account.accountSid, '08047110098');
    t.carrierC.addNumber(account.accountSid, '+918047110097', {
      voiceUrl: `http://my.exotel.com/${account.accountSid}/exoml/start_voice/1234`,
    });
    t.carrierC.addNumber(account.accountSid, '+918047110096', { voiceUrl: voiceUrlOf(account) });

    const res = await connect(org, { ...credentialsOf(account), subdomain: undefined });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data.synced).toEqual({
      remoteCount: 7,
      synced: 5,
      skipped: 2,
      needsSetup: 1,
      routed: 3,
      deactivated: 0,
      complete: true,
    });
    // Without a subdomain the connect uses the default region.
    expect(data.integration.config).toMatchObject({ app_id: account.appId, subdomain: 'api.exotel.com' });

    const numbers = await numbersOf(org);
    expect(Object.keys(numbers).sort()).toEqual([
      '+918047110000',
      '+918047110001',
      '+918047110002',
      '+918047110096',
      '+918047110097',
    ]);
    expect(numbers['+918047110000']).toMatchObject({
      routingStatus: 'READY',
      metadata: {
        source: 'import',
        type: 'Landline',
        region: 'KA',
        routing: { status: 'routed', appId: account.appId },
      },
    });
    expect(numbers['+918047110096']!.metadata.routing).toMatchObject({ status: 'already' });
    expect(numbers['+918047110097']).toMatchObject({
      routingStatus: 'NEEDS_SETUP',
      metadata: { routing: { status: 'left_alone' } },
    });

    // At the carrier: the three unrouted numbers now start the flow; the one on another flow was left alone.
    expect(t.carrierC.number(account.accountSid, '+918047110001').voice_url).toBe(voiceUrlOf(account));
    expect(t.carrierC.number(account.accountSid, '+918047110097').voice_url).toContain('/start_voice/1234');
    const puts = t.carrierC.server.received((r) => onAccount(account)(r) && r.method === 'PUT');
    expect(puts).toHaveLength(3);
    expect(puts.every((p) => p.body.VoiceUrl === voiceUrlOf(account))).toBe(true);

    // Every page was read on the configured host (never the carrier's internal host in next_page_uri), in the
    // Singapore region.
    const pages = t.carrierC.server.received(lists(account));
    expect(pages.map((p) => p.query.Page)).toEqual(['0', '1', '2', '3']);
    expect(pages.every((p) => p.path.startsWith('/api.exotel.com/v2_beta/'))).toBe(true);
  });

  it('speaks to the Mumbai cluster when subdomain names it; the other cluster does not know the account (400)', async () => {
    const org = await telephonyOrg('Mumbai');
    const account = accountWith(1, '+912240001000', 'api.in.exotel.com');
    const wrongRegion = await connect(org, { ...credentialsOf(account), subdomain: 'api.exotel.com' });
    expect(wrongRegion.statusCode).toBe(400);
    expect(wrongRegion.json()).toMatchObject({
      code: 'carrier_rejected',
      message: expect.stringContaining('Authentication failed'),
    });

    const res = await connect(org, credentialsOf(account));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.integration.config.subdomain).toBe('api.in.exotel.com');
    const requests = t.carrierC.server
      .received(onAccount(account))
      .filter((r) => r.basicAuth?.password === account.apiToken);
    expect(requests.map((r) => r.path.split('/')[1])).toEqual([
      'api.exotel.com',
      'api.in.exotel.com',
      'api.in.exotel.com',
    ]);
  });

  it('refuses a subdomain outside the two regional hosts with 400 naming it, before anything is asked of the carrier', async () => {
    const org = await telephonyOrg('Bad subdomain');
    const account = accountWith(1, '+912240002000');
    const res = await connect(org, { ...credentialsOf(account), subdomain: 'evil.example.com' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'subdomain_not_allowed',
      message: expect.stringContaining('evil.example.com'),
      errors: [{ field: 'subdomain', message: expect.stringContaining('api.in.exotel.com') }],
    });
    expect(t.carrierC.server.received(onAccount(account))).toEqual([]);
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it('requires every credential and the appId as strings (400 naming each)', async () => {
    const org = await telephonyOrg('Missing fields');
    const res = await connect(org, { accountSid: 'x', apiToken: 5 });
    expect(res.statusCode).toBe(400);
    const fields = (res.json().errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['apiKey', 'apiToken', 'appId']);
  });

  it('needs a funded wallet (402), and nothing is asked of the carrier', async () => {
    const account = accountWith(1, '+912240003000');
    for (const [name, wallet] of [
      ['No wallet', null],
      ['Low wallet', 99],
    ] as const) {
      const org = await telephonyOrg(name, wallet);
      const res = await connect(org, credentialsOf(account));
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({ success: false, code: 'payment_required' });
    }
    expect(t.carrierC.server.received(onAccount(account))).toEqual([]);
  });

  it("answers 400 with the carrier's words when the account SID does not match the key, storing nothing", async () => {
    const org = await telephonyOrg('Bad token');
    const account = accountWith(1, '+912240004000');
    const otherSid = await connect(org, { ...credentialsOf(account), accountSid: 'someoneelse' });
    expect(otherSid.statusCode).toBe(400);
    expect(otherSid.json().message).toContain('Account SID is invalid');
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it("passes the carrier's own rate limit on as 429, storing nothing", async () => {
    const org = await telephonyOrg('Carrier limit');
    const account = accountWith(1, '+912240005000');
    t.carrierC.server.fail(lists(account), carrierCError(429, 'Too Many Requests'));
    const res = await connect(org, credentialsOf(account));
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'rate_limited',
      message: expect.stringContaining('carrier-c'),
    });
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it('answers 502 when the carrier fails or gives an answer Parley cannot read, storing nothing', async () => {
    const org = await telephonyOrg('Carrier down');
    const account = accountWith(1, '+912240006000');
    t.carrierC.server.fail(lists(account), carrierCError(503, 'Service Unavailable'));
    const down = await connect(org, credentialsOf(account));
    expect(down.statusCode).toBe(502);
    expect(down.json()).toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('could not be reached'),
    });

    t.carrierC.server.fail(lists(account), { status: 200, body: { page: 0, numbers: [] } });
    const nonsense = await connect(org, credentialsOf(account));
    expect(nonsense.statusCode).toBe(502);
    expect(nonsense.json()).toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('could not read'),
    });

    t.carrierC.server.fail(lists(account), {
      status: 200,
      body: { incoming_phone_numbers: [{ phone_number: '+912240006000' }] },
    });
    expect((await connect(org, credentialsOf(account))).statusCode).toBe(502);
    expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
  });

  it('reconnecting replaces the credentials, the flow and the region; numbers on the previous flow move to the new one', async () => {
    const org = await telephonyOrg('Reconnect');
    const account = accountWith(3, '+91224000700');
    expect((await connect(org, { ...credentialsOf(account), label: 'Bengaluru line' })).statusCode).toBe(201);
    const [before] = await t.db.sql<{ id: string; secrets: Record<string, string> }[]>`
      select id, secrets from telephony_integrations where organisation_id = ${org.organisationId}`;

    // The customer regenerates the token and builds a new flow.
    const newToken = t.carrierC.rotateToken(account.accountSid);
    const newApp = t.carrierC.addApp(account.accountSid);
    t.carrierC.addNumber(account.accountSid, '+912240007009', {
      voiceUrl: `http://my.exotel.com/${account.accountSid}/exoml/start_voice/999`,
    });
    const stale = await post(org, 'sync');
    expect(stale.statusCode).toBe(400);
    expect(stale.json().code).toBe('carrier_rejected');

    const res = await connect(org, { ...credentialsOf(account), apiToken: newToken, appId: newApp });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.synced).toMatchObject({
      remoteCount: 4,
      synced: 4,
      routed: 3,
      needsSetup: 1,
      deactivated: 0,
    });
    expect(res.json().data.integration).toMatchObject({
      id: before!.id,
      config: { label: 'Bengaluru line', app_id: newApp },
    });
    const [after] = await t.db.sql<{ secrets: Record<string, string> }[]>`
      select secrets from telephony_integrations where id = ${before!.id}`;
    expect(after!.secrets.api_token).not.toBe(before!.secrets.api_token);
    expect(t.carrierC.number(account.accountSid, '+912240007000').voice_url).toBe(voiceUrlOf(account, newApp));
    // A flow Parley never set stays the customer's.
    expect(t.carrierC.number(account.accountSid, '+912240007009').voice_url).toContain('/start_voice/999');

    // The stored credentials are the new ones.
    const synced = await post(org, 'sync');
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json().data.synced).toMatchObject({ remoteCount: 4, synced: 4, routed: 0 });
    expect(t.carrierC.server.requests.at(-1)!.basicAuth?.password).toBe(newToken);
  });

  it('one change at a time per account: a connect while another runs is refused with 409 and changes nothing', async () => {
    const org = await telephonyOrg('Concurrent');
    const account = accountWith(1, '+912240009000');
    const hold = t.carrierC.server.hold(lists(account));
    const first = connect(org, credentialsOf(account));
    await hold.reached;
    const second = await connect(org, credentialsOf(account));
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('change_in_progress');
    const sync = await post(org, 'sync');
    expect(sync.statusCode).toBe(404);
    hold.release();
    expect((await first).statusCode).toBe(201);
  });

  it('records a flow the carrier refuses on each number, and stops routing when the carrier stops answering', async () => {
    const org = await telephonyOrg('Routing refused');
    const account = accountWith(3, '+91224001100');
    const res = await connect(org, { ...credentialsOf(account), appId: '555' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.synced).toMatchObject({ synced: 3, routed: 0 });
    const numbers = await numbersOf(org);
    expect(numbers['+912240011000']).toMatchObject({
      routingStatus: 'READY',
      metadata: {
        routing: { status: 'failed', appId: '555', reason: expect.stringContaining('VoiceUrl must start a flow') },
      },
    });

    // A rate limit on the first update: the rest are not tried, and the import stands.
    const puts = (r: { method: string; path: string }) => r.method === 'PUT' && onAccount(account)(r);
    t.carrierC.server.fail(puts, carrierCError(429, 'Too Many Requests'));
    const limited = await connect(org, credentialsOf(account));
    expect(limited.statusCode, limited.body).toBe(201);
    expect(limited.json().data.synced).toMatchObject({ synced: 3, routed: 0 });
    const statuses = Object.values(await numbersOf(org)).map((n) => n.metadata.routing!.status);
    expect(statuses).toEqual(['pending', 'pending', 'pending']);
    expect(t.carrierC.server.received(puts).length).toBe(3 + 1);

    // The next sync finishes the job.
    const sync = await post(org, 'sync');
    expect(sync.json().data.synced).toMatchObject({ routed: 3 });
    expect(Object.values(await numbersOf(org)).map((n) => n.metadata.routing!.status)).toEqual([
      'routed',
      'routed',
      'routed',
    ]);
  });
});

describe('POST /telephony/carrier-c/sync', () => {
  it("answers the spec's synced counts, routing the new number and neither taking over nor routing another carrier's", async () => {
    const org = await telephonyOrg('Sync');
    const account = accountWith(3, '+91224001200');
    expect((await connect(org, credentialsOf(account))).statusCode).toBe(201);
    await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-a', phoneNumber: '+912240012999' });
    t.carrierC.addNumber(account.accountSid, '+912240012999');
    t.carrierC.addNumber(account.accountSid, '+912240012005');
    t.carrierC.removeNumber(account.accountSid, '+912240012002');

    const res = await post(org, 'sync');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      synced: { remoteCount: 4, synced: 3, skipped: 1, needsSetup: 0, routed: 1, deactivated: 1, complete: true },
    });
    const numbers = await numbersOf(org);
    expect(numbers['+912240012999']).toMatchObject({ providerNumberId: null });
    expect(t.carrierC.number(account.accountSid, '+912240012999').voice_url).toBeNull();
    expect(t.carrierC.number(account.accountSid, '+912240012005').voice_url).toBe(voiceUrlOf(account));
  });

  it('answers 402 without a funded wallet', async () => {
    const poor = await telephonyOrg('Sync unfunded', 0);
    expect((await post(poor, 'sync')).statusCode).toBe(402);
  });

  it('answers 429 when the carrier limits the read, and 502 when it is down', async () => {
    const org = await telephonyOrg('Sync carrier errors');
    const account = accountWith(1, '+912240015000');
    expect((await connect(org, credentialsOf(account))).statusCode).toBe(201);
    t.carrierC.server.fail(lists(account), carrierCError(429, 'Too Many Requests'));
    expect((await post(org, 'sync')).statusCode).toBe(429);
    t.carrierC.server.fail(lists(account), carrierCError(500, 'Internal Server Error'));
    expect((await post(org, 'sync')).statusCode).toBe(502);
  });
});

describe('carrier-c number assignment', () => {
  it('assigning a number that answers through another flow moves it to the appId flow', async () => {
    const org = await telephonyOrg('Assign');
    const account = accountWith(0, '');
    t.carrierC.addNumber(account.accountSid, '+912240017000', {
      voiceUrl: `http://my.exotel.com/${account.accountSid}/exoml/start_voice/4321`,
    });
    expect((await connect(org, credentialsOf(account))).statusCode).toBe(201);
    const number = (await numbersOf(org))['+912240017000']!;
    expect(number.routingStatus).toBe('NEEDS_SETUP');
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const res = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/telephony/numbers/${number.id}/agent`,
      payload: { organisationId: org.organisationId, agentId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ routingStatus: 'ASSIGNED', agentId });
    expect(t.carrierC.number(account.accountSid, '+912240017000').voice_url).toBe(voiceUrlOf(account));
  });
});

describe('carrier-c connect rate limit', () => {
  it('counts connect against the stricter sensitive-route limit, per client address', async () => {
    const strict = await startTelephonyTestApp({ db: t.db, rateLimits: { telephonyStrict: 2 } });
    try {
      const orgs = await Promise.all(['Strict one', 'Strict two'].map((name) => seedOrganisation(t.db.sql, name)));
      const send = (org: SeededOrganisation, remoteAddress: string) =>
        strict.call(org.key, {
          method: 'POST',
          url: '/api/v1/telephony/carrier-c/connect',
          remoteAddress,
          payload: { organisationId: org.organisationId, accountSid: 'a', apiKey: 'k', apiToken: 't', appId: '1' },
        });
      // Self-serve telephony is off (403), but every request that reaches the route counts.
      expect((await send(orgs[0]!, '10.3.0.1')).statusCode).toBe(403);
      expect((await send(orgs[1]!, '10.3.0.1')).statusCode).toBe(403);
      const limited = await send(orgs[0]!, '10.3.0.1');
      expect(limited.statusCode).toBe(429);
      expect(limited.json().success).toBe(false);
      expect((await send(orgs[0]!, '10.3.0.2')).statusCode).toBe(403);
    } finally {
      await strict.close();
    }
  });
});

describe('carrier-c adapter', () => {
  it('maps each allowed subdomain to a base URL: the real hosts, a {subdomain} template, or one proxy for both', () => {
    expect(regionalBaseUrl('https://api.exotel.com', 'api.in.exotel.com')).toBe('https://api.in.exotel.com');
    expect(regionalBaseUrl('https://api.exotel.com/', 'api.exotel.com')).toBe('https://api.exotel.com');
    expect(regionalBaseUrl('https://{subdomain}', 'api.in.exotel.com')).toBe('https://api.in.exotel.com');
    expect(regionalBaseUrl('http://127.0.0.1:9000/{subdomain}', 'api.exotel.com')).toBe(
      'http://127.0.0.1:9000/api.exotel.com',
    );
    expect(regionalBaseUrl('https://proxy.internal/exotel', 'api.in.exotel.com')).toBe('https://proxy.internal/exotel');
  });

  it('reports a carrier that cannot be reached as unreachable', async () => {
    const client = new CarrierCClient({
      baseUrl: 'http://127.0.0.1:1',
      credentials: { accountSid: 'sid', apiKey: 'key', apiToken: 'token' },
      appId: '1',
    });
    const reading = client.incomingNumbers().next();
    await expect(reading).rejects.toBeInstanceOf(CarrierError);
    await expect(reading).rejects.toMatchObject({ code: 'unreachable', provider: 'carrier-c' });
  });

  it('reads both error shapes of the carrier', async () => {
    const account = accountWith(1, '+912240018000');
    const client = new CarrierCClient({
      baseUrl: regionalBaseUrl(t.carrierC.apiUrl, 'api.exotel.com'),
      credentials: { accountSid: account.accountSid, apiKey: account.apiKey, apiToken: account.apiToken },
      appId: account.appId,
    });
    t.carrierC.server.fail(lists(account), {
      status: 403,
      body: {
        http_code: 403,
        response: {
          code: 403,
          status: 'failure',
          error_data: { code: 1003, description: 'Forbidden for this account' },
        },
      },
    });
    await expect(client.incomingNumbers().next()).rejects.toMatchObject({
      code: 'credentials',
      carrierCode: '1003',
      message: 'Forbidden for this account',
    });
    const [number] = t.carrierC.numbers(account.accountSid) as [FakeExoPhone];
    await client.routeInbound(
      { providerNumberId: null, phoneNumber: number.phone_number },
      'https://ignored.example/voice',
    );
    expect(number.voice_url).toBe(voiceUrlOf(account));
  });
});
