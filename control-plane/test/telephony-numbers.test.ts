/**
 * The /telephony routes every carrier shares: the overview, the numbers list, and routing a number's inbound calls
 * to an agent (assign, unassign) with the routingStatus transitions of spec document 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../src/auth/scopes.ts';
import { CUSTOMER_SCOPES } from '../src/auth/scopes.ts';
import { insertApiKey } from '../src/auth/api-key-repository.ts';
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
  t = await startTelephonyTestApp();
});
afterAll(() => t?.close());

interface NumberRecord {
  id: string;
  phoneNumber: string;
  routingStatus: string | null;
  agentId: string | null;
  agent: { id: string; name: string } | null;
  assignedAgents: { id: string; name: string }[];
  outboundAgents: { id: string; name: string }[];
  providerNumberId: string | null;
}

async function connectedOrg(name: string): Promise<{ org: SeededOrganisation; account: FakeAccount }> {
  const org = await seedOrganisation(t.db.sql, name);
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 1_000 });
  const account = t.carrierB.addAccount();
  return { org, account };
}

async function connect(org: SeededOrganisation, account: FakeAccount): Promise<void> {
  const res = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/telephony/carrier-b/connect',
    payload: { organisationId: org.organisationId, ...account },
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function numbers(org: SeededOrganisation, key = org.key): Promise<NumberRecord[]> {
  const res = await t.call(key, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function numberOf(org: SeededOrganisation, phoneNumber: string): Promise<NumberRecord> {
  const found = (await numbers(org)).find((n) => n.phoneNumber === phoneNumber);
  expect(found, phoneNumber).toBeDefined();
  return found!;
}

const assign = (org: SeededOrganisation, numberId: string, agentId: string, key = org.key) =>
  t.call(key, {
    method: 'PUT',
    url: `/api/v1/telephony/numbers/${numberId}/agent`,
    payload: { organisationId: org.organisationId, agentId },
  });

const unassign = (org: SeededOrganisation, numberId: string, key = org.key) =>
  t.call(key, {
    method: 'DELETE',
    url: `/api/v1/telephony/numbers/${numberId}/agent`,
    query: { organisationId: org.organisationId },
  });

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

describe('routing a number to an agent', () => {
  it("READY → ASSIGNED → READY, pointing the carrier's voice webhook at Parley on assignment", async () => {
    const { org, account } = await connectedOrg('Route ready');
    t.carrierB.addNumber(account.accountSid, '+14155551000');
    await connect(org, account);
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const number = await numberOf(org, '+14155551000');
    expect(number.routingStatus).toBe('READY');

    const res = await assign(org, number.id, agentId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: 'Number assigned' });
    expect(res.json().data).toMatchObject({
      routingStatus: 'ASSIGNED',
      agentId,
      agent: { id: agentId, name: 'VOICE agent' },
      assignedAgents: [{ id: agentId, name: 'VOICE agent' }],
    });
    const [atCarrier] = t.carrierB.numbers(account.accountSid);
    expect(atCarrier).toMatchObject({ voice_url: CARRIER_B_VOICE_URL, voice_method: 'POST' });
    const update = t.carrierB.server.received(
      (r) => r.method === 'POST' && r.path.endsWith(`/IncomingPhoneNumbers/${number.providerNumberId}.json`),
    );
    expect(update).toHaveLength(1);

    const back = await unassign(org, number.id);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data).toMatchObject({ routingStatus: 'READY', agentId: null, agent: null, assignedAgents: [] });
    // Unassigning again changes nothing.
    expect((await unassign(org, number.id)).json().data.routingStatus).toBe('READY');
  });

  it('PURCHASED → ASSIGNED → PURCHASED', async () => {
    const { org, account } = await connectedOrg('Route purchased');
    await connect(org, account);
    t.carrierB.offer('US', 'Local', '+14155551100');
    const bought = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/telephony/carrier-b/purchase',
      payload: { organisationId: org.organisationId, phoneNumber: '+14155551100' },
    });
    expect(bought.statusCode, bought.body).toBe(201);
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    expect((await assign(org, bought.json().data.id, agentId)).json().data.routingStatus).toBe('ASSIGNED');
    expect((await unassign(org, bought.json().data.id)).json().data.routingStatus).toBe('PURCHASED');
  });

  it('NEEDS_SETUP → ASSIGNED moves the number off its other application, and it comes back READY', async () => {
    const { org, account } = await connectedOrg('Route needs setup');
    t.carrierB.addNumber(account.accountSid, '+14155551200', { voiceApplicationSid: 'AP0001', trunkSid: 'TK0001' });
    await connect(org, account);
    const number = await numberOf(org, '+14155551200');
    expect(number.routingStatus).toBe('NEEDS_SETUP');
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    expect((await assign(org, number.id, agentId)).json().data.routingStatus).toBe('ASSIGNED');
    expect(t.carrierB.numbers(account.accountSid)[0]).toMatchObject({
      voice_url: CARRIER_B_VOICE_URL,
      voice_application_sid: '',
      trunk_sid: null,
    });
    expect((await unassign(org, number.id)).json().data.routingStatus).toBe('READY');
    // The carrier now routes it to Parley: a sync agrees.
    await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/telephony/carrier-b/sync',
      payload: { organisationId: org.organisationId },
    });
    expect((await numberOf(org, '+14155551200')).routingStatus).toBe('READY');
  });

  it('reassigning replaces the agent and keeps where the number returns; a sync keeps the assignment', async () => {
    const { org, account } = await connectedOrg('Reassign');
    await connect(org, account);
    t.carrierB.offer('US', 'Local', '+14155551300');
    const bought = (
      await t.call(org.key, {
        method: 'POST',
        url: '/api/v1/telephony/carrier-b/purchase',
        payload: { organisationId: org.organisationId, phoneNumber: '+14155551300' },
      })
    ).json().data;
    const first = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const second = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await assign(org, bought.id, first);
    expect((await assign(org, bought.id, second)).json().data).toMatchObject({
      routingStatus: 'ASSIGNED',
      agentId: second,
    });
    const sync = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/telephony/carrier-b/sync',
      payload: { organisationId: org.organisationId },
    });
    expect(sync.json().data).toMatchObject({ updated: 1, deactivated: 0 });
    expect(await numberOf(org, '+14155551300')).toMatchObject({ routingStatus: 'ASSIGNED', agentId: second });
    expect((await unassign(org, bought.id)).json().data.routingStatus).toBe('PURCHASED');
  });

  it('routes a number of no connected account (managed, seeded) without calling any carrier', async () => {
    const org = await seedOrganisation(t.db.sql, 'Managed');
    const numberId = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551400',
    });
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const before = t.carrierB.server.requests.length;
    expect((await assign(org, numberId, agentId)).json().data).toMatchObject({ routingStatus: 'ASSIGNED', agentId });
    expect((await unassign(org, numberId)).json().data).toMatchObject({ routingStatus: 'READY', agentId: null });
    expect(t.carrierB.server.requests.length).toBe(before);
  });

  it('needs an active VOICE agent of the organisation and an active number of it', async () => {
    const { org, account } = await connectedOrg('Route rules');
    t.carrierB.addNumber(account.accountSid, '+14155551500');
    await connect(org, account);
    const number = await numberOf(org, '+14155551500');
    const chat = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const paused = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await t.db.sql`update agents set is_active = false where id = ${paused}`;
    const deleted = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await t.db.sql`update agents set deleted_at = now() where id = ${deleted}`;
    const stranger = await seedOrganisation(t.db.sql, 'Stranger');
    const foreignAgent = await seedAgent(t.db.sql, stranger.organisationId, 'VOICE');
    const foreignNumber = await seedPhoneNumber(t.db.sql, stranger.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551501',
    });
    const inactive = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551502',
      status: 'INACTIVE',
    });
    const voice = await seedAgent(t.db.sql, org.organisationId, 'VOICE');

    const chatRes = await assign(org, number.id, chat);
    expect(chatRes.statusCode).toBe(400);
    expect(chatRes.json().errors).toEqual([{ field: 'agentId', message: expect.stringContaining('VOICE') }]);
    expect((await assign(org, number.id, paused)).json().errors[0].message).toContain('paused');
    expect((await assign(org, number.id, deleted)).statusCode).toBe(404);
    expect((await assign(org, number.id, foreignAgent)).statusCode).toBe(404);
    expect((await assign(org, foreignNumber, voice)).statusCode).toBe(404);
    expect((await assign(org, inactive, voice)).statusCode).toBe(404);
    expect((await unassign(org, foreignNumber)).statusCode).toBe(404);
    // Nothing of the refused assignments reached the carrier or the number.
    expect(
      t.carrierB.server.received(
        (r) => r.method === 'POST' && r.path.includes(`${account.accountSid}/IncomingPhoneNumbers/PN`),
      ),
    ).toEqual([]);
    expect((await numberOf(org, '+14155551500')).routingStatus).toBe('READY');
  });

  it('changes nothing when the carrier refuses to point the number at Parley', async () => {
    const { org, account } = await connectedOrg('Route carrier fails');
    t.carrierB.addNumber(account.accountSid, '+14155551600');
    await connect(org, account);
    const number = await numberOf(org, '+14155551600');
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    t.carrierB.server.fail(
      (r) => r.method === 'POST' && r.path.includes(account.accountSid),
      carrierBError(500, 20500, 'Internal Server Error'),
    );
    const failed = await assign(org, number.id, agentId);
    expect(failed.statusCode).toBe(502);
    expect(failed.json().code).toBe('upstream_failed');
    expect(failed.body).not.toContain('20500');
    t.carrierB.removeNumber(account.accountSid, '+14155551600');
    const gone = await assign(org, number.id, agentId);
    expect(gone.statusCode).toBe(400);
    expect(gone.json().code).toBe('carrier_rejected');
    expect(await numberOf(org, '+14155551600')).toMatchObject({ routingStatus: 'READY', agentId: null });
  });

  it('a number whose agent is deleted reads as unassigned again', async () => {
    const org = await seedOrganisation(t.db.sql, 'Agent deleted');
    const numberId = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551700',
    });
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await assign(org, numberId, agentId);
    const removed = await t.call(org.key, { method: 'DELETE', url: `/api/v1/voice/agents/${agentId}` });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await numberOf(org, '+14155551700')).toMatchObject({ routingStatus: 'READY', agentId: null, agent: null });
  });
});

describe('GET /telephony/numbers and /telephony/overview', () => {
  it('lists active numbers newest first with assigned and outbound agents computed', async () => {
    const org = await seedOrganisation(t.db.sql, 'Listing');
    const older = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+14155551800',
      ageSeconds: 60,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551801',
      ageSeconds: 30,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551802',
      status: 'INACTIVE',
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155551803',
      deleted: true,
    });
    const inbound = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await assign(org, older, inbound);
    const created = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/voice/agents',
      payload: {
        name: 'Dialler',
        agentIdentity: 'You call.',
        agentTask: 'Call.',
        greetingMessage: 'Hi',
        callingNumber: '+14155551800',
        telephonyProvider: 'carrier-b',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const dialler = created.json().data.id;

    const list = await numbers(org);
    expect(list.map((n) => n.phoneNumber)).toEqual(['+14155551801', '+14155551800']);
    expect(list[1]).toMatchObject({
      agentId: inbound,
      assignedAgents: [{ id: inbound, name: 'VOICE agent' }],
      outboundAgents: [{ id: dialler, name: 'Dialler' }],
      capabilities: { voice: true, sms: false },
      customerRatePerMin: null,
      monthlyCostUsd: null,
      metadata: { source: null, type: null, region: null, capabilities: {} },
    });
    expect(list[0]).toMatchObject({ agent: null, assignedAgents: [], outboundAgents: [] });
  });

  it('shows the wallet only with wallet:read and the rates only with billing:read', async () => {
    const { org, account } = await connectedOrg('Overview');
    await t.db.sql`update organisations set billing_country = 'IN' where id = ${org.organisationId}`;
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 1_250, hasPaid: true });
    t.carrierB.addNumber(account.accountSid, '+14155551900');
    await connect(org, account);

    const full = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/overview/${org.organisationId}` });
    expect(full.statusCode, full.body).toBe(200);
    const data = full.json().data;
    expect(data).toMatchObject({
      featureEnabled: true,
      processorEnabled: true,
      paid: true,
      wallet: { balance: 12.5, currency: 'USD', hasPaid: true },
      rates: { baseRatePerMinute: 0.05, countryProviderRates: {} },
    });
    expect(data.integrations).toHaveLength(1);
    expect(data.integrations[0].config).toMatchObject({ account_sid: 'configured', auth_token: 'configured' });
    expect(data.numbers.map((n: NumberRecord) => n.phoneNumber)).toEqual(['+14155551900']);
    expect(full.body).not.toContain(account.authToken);

    const readOnly = await keyWith(org, ['numbers:read']);
    const narrow = (
      await t.call(readOnly, { method: 'GET', url: `/api/v1/telephony/overview/${org.organisationId}` })
    ).json().data;
    expect(narrow).toMatchObject({ paid: true, wallet: null, rates: null });

    const plain = await seedOrganisation(t.db.sql, 'Plain');
    const empty = (
      await t.call(plain.key, { method: 'GET', url: `/api/v1/telephony/overview/${plain.organisationId}` })
    ).json().data;
    expect(empty).toEqual({
      featureEnabled: false,
      processorEnabled: false,
      paid: false,
      wallet: null,
      rates: { baseRatePerMinute: 0.05, countryProviderRates: {} },
      integrations: [],
      numbers: [],
    });
  });

  it('reads need numbers:read, routing needs numbers:write; another organisation is 403', async () => {
    const org = await seedOrganisation(t.db.sql, 'Scopes');
    const numberId = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155552000',
    });
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const reader = await keyWith(org, ['numbers:read']);
    const writer = await keyWith(org, ['numbers:write']);
    const neither = await keyWith(
      org,
      CUSTOMER_SCOPES.filter((s) => s !== 'numbers:read' && s !== 'numbers:write'),
    );

    expect((await numbers(org, reader)).map((n) => n.phoneNumber)).toEqual(['+14155552000']);
    expect(
      (await t.call(neither, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}` })).statusCode,
    ).toBe(403);
    const denied = await assign(org, numberId, agentId, reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('insufficient_scope');
    expect((await unassign(org, numberId, reader)).statusCode).toBe(403);
    expect((await assign(org, numberId, agentId, writer)).statusCode).toBe(200);
    expect((await unassign(org, numberId, writer)).statusCode).toBe(200);

    const other = await seedOrganisation(t.db.sql, 'Other');
    const foreign = await t.call(other.key, { method: 'GET', url: `/api/v1/telephony/overview/${org.organisationId}` });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('foreign_organisation');
    const foreignAssign = await t.call(other.key, {
      method: 'PUT',
      url: `/api/v1/telephony/numbers/${numberId}/agent`,
      payload: {
        organisationId: other.organisationId,
        agentId: await seedAgent(t.db.sql, other.organisationId, 'VOICE'),
      },
    });
    expect(foreignAssign.statusCode).toBe(404);
  });
});
