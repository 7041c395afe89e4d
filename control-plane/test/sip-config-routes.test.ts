/**
 * /sip-config (spec document 2 "SIP configuration"; docs/architecture.md §12): the three reads of the spec with
 * every field of document 1, 403/404, ordering and the inbound filter; the writes of configurations and trunks,
 * their field-named 400s, and secrets that never come back. Real routing, validation and Postgres (or PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { keyWithout } from './support/billing.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Trunks');
  other = await seedOrganisation(t.db.sql, 'Elsewhere');
  agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const post = (key: string, url: string, payload: object) =>
  t.call(key, { method: 'POST', url: `/api/v1${url}`, payload });
const patch = (key: string, url: string, payload: object) =>
  t.call(key, { method: 'PATCH', url: `/api/v1${url}`, payload });
const get = (key: string, url: string) => t.call(key, { method: 'GET', url: `/api/v1${url}` });
const del = (key: string, url: string) => t.call(key, { method: 'DELETE', url: `/api/v1${url}` });

async function createTrunk(key: string, body: object = {}): Promise<Record<string, unknown>> {
  const res = await post(key, '/sip-config/trunks', {
    name: 'Office PBX',
    host: 'pbx.example.com',
    username: 'parley',
    password: 's3cret-digest',
    sourceAddresses: ['203.0.113.0/24', '2001:db8::1'],
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

let numberSeq = 10;
const nextNumber = () => `+1415555${String(numberSeq++).padStart(4, '0')}`;

async function createConfiguration(key: string, body: object): Promise<Record<string, unknown>> {
  const res = await post(key, '/sip-config', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('SIP trunks', () => {
  it('stores the password encrypted and never returns it', async () => {
    const trunk = await createTrunk(org.key);
    expect(trunk).toMatchObject({
      organisationId: org.organisationId,
      name: 'Office PBX',
      host: 'pbx.example.com',
      port: 5060,
      transport: 'udp',
      username: 'parley',
      hasPassword: true,
      sourceAddresses: ['203.0.113.0/24', '2001:db8::1'],
      register: false,
      isActive: true,
    });
    expect(JSON.stringify(trunk)).not.toContain('s3cret-digest');
    const [row] = await t.db.sql<
      { password_secret: string }[]
    >`select password_secret from sip_trunks where id = ${trunk.id as string}`;
    expect(row!.password_secret).toMatch(/^enc:v1:/);
    expect(row!.password_secret).not.toContain('s3cret');
    expect(t.secrets.decrypt(row!.password_secret, `sip-trunk:${org.organisationId}:${trunk.id}`)).toBe(
      's3cret-digest',
    );

    const read = await get(org.key, `/sip-config/trunks/${trunk.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain('s3cret');
    const listed = await get(org.key, `/sip-config/organisation/${org.organisationId}/trunks`);
    expect(listed.json().data.map((x: { id: string }) => x.id)).toContain(trunk.id);
    expect(listed.body).not.toContain('s3cret');
  });

  it('changes only what is sent; null removes the password', async () => {
    const trunk = await createTrunk(org.key);
    const res = await patch(org.key, `/sip-config/trunks/${trunk.id}`, { port: 5080, transport: 'tcp' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ port: 5080, transport: 'tcp', hasPassword: true, host: 'pbx.example.com' });
    const cleared = await patch(org.key, `/sip-config/trunks/${trunk.id}`, { password: null });
    expect(cleared.json().data.hasPassword).toBe(false);
  });

  it.each([
    [{ host: 'not a host!' }, 'host'],
    [{ sourceAddresses: ['10.0.0.0/33'] }, 'sourceAddresses.0'],
    [{ sourceAddresses: ['example.com'] }, 'sourceAddresses.0'],
    [{ port: 70000 }, 'port'],
    [{ transport: 'tls' }, 'transport'],
    [{ username: null, password: 'x' }, 'username'],
    [{ surprise: true }, 'surprise'],
  ])('refuses %j naming %s', async (body, field) => {
    const res = await post(org.key, '/sip-config/trunks', { name: 'Bad', host: 'pbx.example.com', ...body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("keeps another organisation's trunk out of reach (403), and an unknown one 404", async () => {
    const trunk = await createTrunk(other.key);
    expect((await get(org.key, `/sip-config/trunks/${trunk.id}`)).statusCode).toBe(403);
    expect((await patch(org.key, `/sip-config/trunks/${trunk.id}`, { port: 5070 })).statusCode).toBe(403);
    expect((await del(org.key, `/sip-config/trunks/${trunk.id}`)).statusCode).toBe(403);
    expect((await get(org.key, '/sip-config/trunks/0123456789abcdef01234567')).statusCode).toBe(404);
  });

  it('is not deleted while a configuration uses it (409), then is', async () => {
    const trunk = await createTrunk(org.key);
    const config = await createConfiguration(org.key, {
      sipTrunkId: trunk.id,
      type: 'OUTBOUND',
      phoneNumber: nextNumber(),
    });
    expect((await del(org.key, `/sip-config/trunks/${trunk.id}`)).statusCode).toBe(409);
    expect((await del(org.key, `/sip-config/${config.id}`)).statusCode).toBe(200);
    expect((await del(org.key, `/sip-config/trunks/${trunk.id}`)).statusCode).toBe(200);
    expect((await get(org.key, `/sip-config/trunks/${trunk.id}`)).statusCode).toBe(404);
  });
});

describe('SIP configurations', () => {
  it('answers every field of spec document 1, and no internal cost', async () => {
    const trunk = await createTrunk(org.key);
    const phoneNumber = nextNumber();
    const created = await createConfiguration(org.key, {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      agentId,
      phoneNumber,
      maxConcurrentCalls: 3,
      maxQueueSize: 2,
      callTimeoutMs: 20_000,
      callingScope: 'ALLOWED_COUNTRIES',
      allowedCountries: ['GB', 'CA'],
      sipReferEnabled: true,
      customerRentalPerMonth: 4.5,
      customerInboundSurchargePerMin: 0.015,
      customerOutboundSurchargePerMin: 0.02,
    });
    await t.db
      .sql`update sip_configurations set carrier_cost_per_min_minor_e4 = 7777, carrier_rental_per_month_minor_e4 = 8888 where id = ${created.id as string}`;
    const res = await get(org.key, `/sip-config/${created.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(
      [
        'id',
        'organisationId',
        'sipTrunkId',
        'type',
        'providerId',
        'provider',
        'agentId',
        'phoneNumber',
        'maxConcurrentCalls',
        'maxQueueSize',
        'callTimeoutMs',
        'callingScope',
        'allowedCountries',
        'sipReferEnabled',
        'customerRentalPerMonth',
        'customerInboundSurchargePerMin',
        'customerOutboundSurchargePerMin',
        'isActive',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(data).toMatchObject({
      organisationId: org.organisationId,
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      agentId,
      phoneNumber,
      maxConcurrentCalls: 3,
      maxQueueSize: 2,
      callTimeoutMs: 20_000,
      callingScope: 'ALLOWED_COUNTRIES',
      allowedCountries: ['GB', 'CA'],
      sipReferEnabled: true,
      customerRentalPerMonth: 4.5,
      customerInboundSurchargePerMin: 0.015,
      customerOutboundSurchargePerMin: 0.02,
      isActive: true,
      provider: { name: 'generic', displayName: 'Generic SIP trunk', isSystem: true, isActive: true },
    });
    expect(data.providerId).toBe(data.provider.id);
    expect(Object.keys(data.provider).sort()).toEqual(
      ['id', 'name', 'displayName', 'isSystem', 'isActive', 'createdAt', 'updatedAt'].sort(),
    );
    expect(res.body).not.toMatch(/7777|8888|0\.7777|carrier/i);
  });

  it('lists oldest first, all types and states; /inbound only INBOUND, assigned or not', async () => {
    const fresh = await seedOrganisation(t.db.sql, 'Listing');
    const trunk = await createTrunk(fresh.key);
    const a = await createConfiguration(fresh.key, {
      sipTrunkId: trunk.id,
      type: 'OUTBOUND',
      phoneNumber: nextNumber(),
    });
    const b = await createConfiguration(fresh.key, {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      phoneNumber: nextNumber(),
    });
    const c = await createConfiguration(fresh.key, {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      phoneNumber: nextNumber(),
      isActive: false,
    });
    // Same second of creation: the order must still be the creation order.
    await t.db.sql`update sip_configurations set created_at = now() - interval '1 hour' where id = ${a.id as string}`;
    const all = await get(fresh.key, `/sip-config/organisation/${fresh.organisationId}`);
    expect(all.statusCode).toBe(200);
    expect(all.json().data.map((x: { id: string }) => x.id)).toEqual([a.id, b.id, c.id]);
    const inbound = await get(fresh.key, `/sip-config/organisation/${fresh.organisationId}/inbound`);
    expect(inbound.json().data.map((x: { id: string }) => x.id)).toEqual([b.id, c.id]);
    expect(inbound.json().data.map((x: { agentId: unknown }) => x.agentId)).toEqual([null, null]);
  });

  it("403 for another organisation's configuration or list, 404 for none", async () => {
    const trunk = await createTrunk(other.key);
    const theirs = await createConfiguration(other.key, {
      sipTrunkId: trunk.id,
      type: 'OUTBOUND',
      phoneNumber: nextNumber(),
    });
    expect((await get(org.key, `/sip-config/${theirs.id}`)).statusCode).toBe(403);
    expect((await patch(org.key, `/sip-config/${theirs.id}`, { maxConcurrentCalls: 1 })).statusCode).toBe(403);
    expect((await del(org.key, `/sip-config/${theirs.id}`)).statusCode).toBe(403);
    expect((await get(org.key, `/sip-config/organisation/${other.organisationId}`)).statusCode).toBe(403);
    expect((await get(org.key, `/sip-config/organisation/${other.organisationId}/inbound`)).statusCode).toBe(403);
    expect((await get(org.key, '/sip-config/0123456789abcdef01234567')).statusCode).toBe(404);
    // Another organisation's trunk cannot carry our configuration.
    const res = await post(org.key, '/sip-config', {
      sipTrunkId: trunk.id,
      type: 'OUTBOUND',
      phoneNumber: nextNumber(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('sipTrunkId');
  });

  it('changes only what is sent, unassigns with agentId null, and deletes', async () => {
    const trunk = await createTrunk(org.key);
    const config = await createConfiguration(org.key, {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      agentId,
      phoneNumber: nextNumber(),
    });
    const res = await patch(org.key, `/sip-config/${config.id}`, {
      maxConcurrentCalls: 7,
      customerInboundSurchargePerMin: 0.5,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ maxConcurrentCalls: 7, customerInboundSurchargePerMin: 0.5, agentId });
    const unassigned = await patch(org.key, `/sip-config/${config.id}`, { agentId: null });
    expect(unassigned.json().data.agentId).toBeNull();
    expect((await del(org.key, `/sip-config/${config.id}`)).json().data.id).toBe(config.id);
    expect((await get(org.key, `/sip-config/${config.id}`)).statusCode).toBe(404);
  });

  it('refuses a second active INBOUND configuration of one number (409)', async () => {
    const trunk = await createTrunk(org.key);
    const phoneNumber = nextNumber();
    await createConfiguration(org.key, { sipTrunkId: trunk.id, type: 'INBOUND', phoneNumber });
    const res = await post(org.key, '/sip-config', { sipTrunkId: trunk.id, type: 'INBOUND', phoneNumber });
    expect(res.statusCode, res.body).toBe(409);
  });

  it.each([
    [{ type: 'SIDEWAYS' }, 'type'],
    [{ phoneNumber: '4155550100' }, 'phoneNumber'],
    [{ maxConcurrentCalls: 0 }, 'maxConcurrentCalls'],
    [{ maxQueueSize: -1 }, 'maxQueueSize'],
    [{ callTimeoutMs: 10 }, 'callTimeoutMs'],
    [{ callingScope: 'EVERYWHERE' }, 'callingScope'],
    [{ allowedCountries: ['gb'] }, 'allowedCountries.0'],
    [{ customerRentalPerMonth: -1 }, 'customerRentalPerMonth'],
    [{ customerInboundSurchargePerMin: 0.0000001 }, 'customerInboundSurchargePerMin'],
    [{ providerId: 'no-such-provider' }, 'providerId'],
    [{ agentId: '0123456789abcdef01234567' }, 'agentId'],
    [{ agentId: 'nope' }, 'agentId'],
    [{ sipTrunkId: '0123456789abcdef01234567' }, 'sipTrunkId'],
    [{ type: 'OUTBOUND', maxQueueSize: 3 }, 'maxQueueSize'],
    [{ sipReferEnabled: 'yes' }, 'sipReferEnabled'],
  ])('refuses %j naming %s', async (body, field) => {
    const trunk = await createTrunk(org.key);
    const res = await post(org.key, '/sip-config', {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      phoneNumber: nextNumber(),
      ...body,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('refuses a CHAT agent, naming agentId', async () => {
    const chat = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const trunk = await createTrunk(org.key);
    const res = await post(org.key, '/sip-config', {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      phoneNumber: nextNumber(),
      agentId: chat,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('agentId');
  });
});

describe('scopes', () => {
  it('reads need sip:read, writes sip:write', async () => {
    const noRead = await keyWithout(t.db.sql, org, 'sip:read');
    const noWrite = await keyWithout(t.db.sql, org, 'sip:write');
    expect((await get(noRead, `/sip-config/organisation/${org.organisationId}`)).statusCode).toBe(403);
    expect((await get(noRead, `/sip-config/organisation/${org.organisationId}/inbound`)).statusCode).toBe(403);
    expect((await get(noRead, '/sip-config/0123456789abcdef01234567')).json().code).toBe('insufficient_scope');
    expect((await get(noWrite, `/sip-config/organisation/${org.organisationId}`)).statusCode).toBe(200);
    const refused = await post(noWrite, '/sip-config/trunks', { name: 'x', host: 'pbx.example.com' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('insufficient_scope');
    expect((await get(org.key, '/sip-config/providers')).json().data.map((p: { name: string }) => p.name)).toContain(
      'generic',
    );
  });
});
