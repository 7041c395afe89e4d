/**
 * Trunk registration end to end (docs/architecture.md §11, §12): a trunk saved with `register` makes a real SIP
 * gateway, told over the bus, fetch the list from the control plane (password decrypted), REGISTER with SIPp as the
 * trunk's registrar (401 challenge, then 200 granting 4 s), refresh, and report each state, which the trunk reads
 * show; deleting the trunk unregisters it (Expires: 0). Reports are kept newest-first per gateway; `register`
 * without a username is a 400 naming the field.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@parley/engine/bus';
import { sipCodecs, subjects } from '@parley/engine/protocol';
import { SipGateway } from '@parley/sip-gateway';
import { freePort, runSipp } from '@parley/sip-gateway/testing';
import { SipRegistrationResponder, SipRegistrations } from '../src/sip/sip-registrations.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createTrunk } from './support/sip.ts';
import { createIsolatedBus } from './support/workers.ts';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
let responder: SipRegistrationResponder;
let gateway: SipGateway;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-sip-register-'));
  bus = await createIsolatedBus();
  t = await startTestApp({ bus });
  responder = new SipRegistrationResponder(new SipRegistrations(t.db.sql, t.secrets)).listen(bus);
  org = await seedOrganisation(t.db.sql, 'Registered PBX');
  const rtpPortMin = 47_000 + Math.floor(Math.random() * 40) * 50;
  gateway = await SipGateway.start(bus, {
    host: '127.0.0.1',
    sipPort: 0,
    rtpPortMin,
    rtpPortMax: rtpPortMin + 9,
    registration: { listRetryMs: 200 },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await responder?.close();
  await t?.close();
  await bus?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const get = (url: string) => t.call(org.key, { method: 'GET', url: `/api/v1${url}` });

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Registration {
  gatewayId: string;
  state: string;
  sipStatus: number | null;
  expiresAt: string | null;
  updatedAt: string;
}

async function registrationsOf(trunkId: string): Promise<Registration[]> {
  const res = await get(`/sip-config/trunks/${trunkId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.registrations;
}

describe('trunk registration', () => {
  it('refuses register without a username, naming the field', async () => {
    const res = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/sip-config/trunks',
      payload: { name: 'No user', host: '127.0.0.1', register: true },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/register/);
  });

  it('registers a trunk saved with register on, shows the state on the trunk reads, and unregisters it on delete', async () => {
    const registrarPort = await freePort();
    const registrar = runSipp({
      scenario: 'uas-register.xml',
      target: 0,
      uas: { port: registrarPort },
      dir,
      values: { USER: 'pbx-user', PASSWORD: 'pbx-secret', ASK_S: 3600, GRANT_S: 4 },
      timeoutMs: 40_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const changed = bus.subscribe(subjects.sipRegistrationsChanged());
    const trunk = await createTrunk(t, org.key, {
      name: 'Registered trunk',
      host: '127.0.0.1',
      port: registrarPort,
      username: 'pbx-user',
      password: 'pbx-secret',
      register: true,
      sourceAddresses: [],
    });
    // The write told the gateways.
    const told = await Promise.race([
      changed[Symbol.asyncIterator]().next(),
      new Promise((resolve) => setTimeout(() => resolve('silence'), 5_000)),
    ]);
    expect(told).not.toBe('silence');
    changed.unsubscribe();

    // The list a gateway gets: this trunk with its password decrypted and the life to ask for.
    const list = sipCodecs.registrationsReply.decode(
      (
        await bus.request(subjects.sipRegistrations(), sipCodecs.registrationsRequest.encode({ gatewayId: 'probe' }), {
          timeoutMs: 5_000,
        })
      ).data,
    );
    expect(list.registrations.find((r) => r.trunkId === trunk.id)).toEqual({
      trunkId: trunk.id,
      organisationId: org.organisationId,
      host: '127.0.0.1',
      port: registrarPort,
      transport: 'udp',
      username: 'pbx-user',
      password: 'pbx-secret',
      expiresS: 3600,
    });

    const first = await until(
      async () => (await registrationsOf(trunk.id)).find((r) => r.state === 'registered'),
      15_000,
      'the trunk to show registered',
    );
    expect(first).toMatchObject({ gatewayId: gateway.id, sipStatus: 200 });
    expect(Date.parse(first.expiresAt!) - Date.parse(first.updatedAt)).toBe(4_000);
    const listed = await get(`/sip-config/organisation/${org.organisationId}/trunks`);
    expect(listed.json().data.find((row: { id: string }) => row.id === trunk.id).registrations).toEqual([
      expect.objectContaining({ gatewayId: gateway.id, state: 'registered' }),
    ]);
    expect(gateway.health.registrations.find((r) => r.trunkId === trunk.id)).toMatchObject({ state: 'registered' });

    // The refresh, before the 4 s grant ran out, is reported too.
    await until(
      async () =>
        (await registrationsOf(trunk.id)).find((r) => r.state === 'registered' && r.updatedAt !== first.updatedAt),
      10_000,
      'the refresh',
    );

    const removed = await t.call(org.key, { method: 'DELETE', url: `/api/v1/sip-config/trunks/${trunk.id}` });
    expect(removed.statusCode, removed.body).toBe(200);
    const result = await registrar;
    expect(result.errors, result.stdout).toBe('');
    expect(result.code, result.stdout).toBe(0);
    await until(
      async () => (gateway.health.registrations.some((r) => r.trunkId === trunk.id) ? undefined : true),
      5_000,
      'the gateway to drop the trunk',
    );
  }, 60_000);

  it('keeps the newest report per gateway and forgets a gateway that unregistered', async () => {
    const trunk = await createTrunk(t, org.key, { name: 'Reported trunk', sourceAddresses: [] });
    const registrations = new SipRegistrations(t.db.sql, t.secrets);
    const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
    const report = { gatewayId: 'gw-1', trunkId: trunk.id, organisationId: org.organisationId };
    await registrations.record({ ...report, state: 'registered', sipStatus: 200, expiresAt: at(60_000), at: at(0) });
    // An older report arriving late changes nothing.
    await registrations.record({ ...report, state: 'failing', sipStatus: 503, at: at(-5_000) });
    await registrations.record({ ...report, gatewayId: 'gw-2', state: 'failing', sipStatus: 408, at: at(0) });
    // Another organisation's report for this trunk is ignored.
    await registrations.record({
      ...report,
      gatewayId: 'gw-3',
      organisationId: 'x'.repeat(24),
      state: 'registering',
      at: at(0),
    });
    expect((await registrationsOf(trunk.id)).map((r) => [r.gatewayId, r.state, r.sipStatus])).toEqual([
      ['gw-1', 'registered', 200],
      ['gw-2', 'failing', 408],
    ]);
    await registrations.record({ ...report, state: 'unregistered', sipStatus: 200, at: at(1_000) });
    expect((await registrationsOf(trunk.id)).map((r) => r.gatewayId)).toEqual(['gw-2']);
  });
});
