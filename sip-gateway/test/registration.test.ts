/**
 * REGISTER toward trunks, against SIPp as the registrar: a stand-in control plane lists the trunks to register
 * (`v1.sip.registrations.list`) and says when the list changed. The gateway answers the registrar's digest challenge,
 * takes the grant from its Contact's expires, refreshes before it runs out, and unregisters (Expires: 0) when the
 * trunk leaves the list; a failing registrar is retried with a doubling back-off, and shutdown unregisters. Each
 * state is published for the control plane and shown at /healthz.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  queues,
  sipCodecs,
  subjects,
  type SipRegistrationState,
  type SipRegistrationTarget,
} from '@parley/engine/protocol';
import { startHealthServer } from '../src/health-server.ts';
import { startBareGateway, type BareGateway } from './support/bare-gateway.ts';
import { freePort, runSipp } from './support/sipp.ts';
import { RawCall, RawSip } from './support/raw-sip.ts';

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The control plane's side: answers the list with `targets`, records every published state with when it came. */
function standInControlPlane(bare: BareGateway) {
  const stand = { targets: [] as SipRegistrationTarget[], states: [] as (SipRegistrationState & { seenAt: number })[] };
  const list = bare.bus.subscribe(subjects.sipRegistrations(), { queue: queues.controlPlane });
  void (async () => {
    for await (const message of list)
      message.respond(sipCodecs.registrationsReply.encode({ registrations: stand.targets }));
  })();
  const states = bare.bus.subscribe(subjects.sipRegistrationState(), { queue: queues.controlPlane });
  void (async () => {
    for await (const message of states)
      stand.states.push({ ...sipCodecs.registrationState.decode(message.data), seenAt: performance.now() });
  })();
  return stand;
}

const target = (trunkId: string, port: number, extra: Partial<SipRegistrationTarget> = {}): SipRegistrationTarget => ({
  trunkId,
  organisationId: 'org-reg',
  host: '127.0.0.1',
  port,
  transport: 'udp',
  username: 'parley',
  password: 's3cret',
  expiresS: 60,
  ...extra,
});

describe('REGISTER toward a trunk', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-register-'));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('registers with digest auth, refreshes before the grant runs out, and unregisters when the trunk is removed', async () => {
    const registrarPort = await freePort();
    const registrar = runSipp({
      scenario: 'uas-register.xml',
      target: 0,
      uas: { port: registrarPort },
      dir,
      values: { USER: 'parley', PASSWORD: 's3cret', ASK_S: 60, GRANT_S: 4 },
      timeoutMs: 30_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The list can only be had once the stand-in listens: the gateway asks again soon after a failure.
    const bare = await startBareGateway({ registration: { listRetryMs: 200, resyncMs: 60_000 } });
    const health = await startHealthServer('127.0.0.1', 0, () => bare.gateway.health);
    try {
      const stand = standInControlPlane(bare);
      stand.targets = [target('trunk-a', registrarPort)];
      const registered = () => stand.states.filter((s) => s.trunkId === 'trunk-a' && s.state === 'registered');
      await until(() => registered().length >= 1, 10_000, 'the first registration');
      const first = registered()[0]!;
      // The Contact's expires=4 is the grant, not the Expires header's 3600.
      expect(Date.parse(first.expiresAt!) - Date.parse(first.at)).toBe(4_000);
      expect(first).toMatchObject({ gatewayId: bare.gateway.id, organisationId: 'org-reg', sipStatus: 200 });
      const healthz = (await (await fetch(`http://127.0.0.1:${health.port}/healthz`)).json()) as {
        registrations: unknown[];
      };
      expect(healthz.registrations).toEqual([
        expect.objectContaining({
          trunkId: 'trunk-a',
          registrar: `127.0.0.1:${registrarPort}`,
          state: 'registered',
          sipStatus: 200,
          failures: 0,
        }),
      ]);

      // The refresh comes before the 4 s grant has run out (at half of it).
      await until(() => registered().length >= 2, 10_000, 'the refresh');
      const gap = registered()[1]!.seenAt - first.seenAt;
      expect(gap).toBeGreaterThan(1_500);
      expect(gap).toBeLessThan(4_000);

      // The trunk no longer asks for registration: Expires: 0, then the registrar's scenario is complete.
      stand.targets = [];
      bare.bus.publish(subjects.sipRegistrationsChanged(), '{}');
      const result = await registrar;
      expect(result.errors, result.stdout).toBe('');
      expect(result.code, result.stdout).toBe(0);
      await until(() => stand.states.at(-1)?.state === 'unregistered', 5_000, 'the unregistered state');
      expect(stand.states.at(-1)).toMatchObject({ trunkId: 'trunk-a', state: 'unregistered', sipStatus: 200 });
      expect(bare.gateway.health.registrations).toEqual([]);
      expect(stand.states.some((s) => s.state === 'failing')).toBe(false);
    } finally {
      await health.close();
      await bare.close();
    }
  }, 40_000);

  it('retries a failing registrar with a doubling back-off, reports each failure, and unregisters at shutdown', async () => {
    const registrarPort = await freePort();
    const registrar = runSipp({
      scenario: 'uas-register-fail.xml',
      target: 0,
      uas: { port: registrarPort },
      dir,
      timeoutMs: 30_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bare = await startBareGateway({
      registration: { listRetryMs: 200, resyncMs: 60_000, retry: { minMs: 400, maxMs: 5_000 } },
    });
    const stand = standInControlPlane(bare);
    stand.targets = [target('trunk-b', registrarPort, { password: undefined, expiresS: 3_600 })];
    await until(() => stand.states.some((s) => s.state === 'registered'), 15_000, 'the registration');
    const failures = stand.states.filter((s) => s.state === 'failing');
    expect(failures.map((s) => s.sipStatus)).toEqual([503, 403]);
    const registered = stand.states.find((s) => s.state === 'registered')!;
    // 400 ms after the first failure, then 800 ms after the second (timers only ever run late, never early).
    expect(failures[1]!.seenAt - failures[0]!.seenAt).toBeGreaterThanOrEqual(380);
    expect(registered.seenAt - failures[1]!.seenAt).toBeGreaterThanOrEqual(780);
    expect(bare.gateway.health.registrations).toEqual([
      expect.objectContaining({ trunkId: 'trunk-b', state: 'registered', sipStatus: 200, failures: 0 }),
    ]);

    await bare.close();
    const result = await registrar;
    expect(result.errors, result.stdout).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(stand.states.at(-1)).toMatchObject({ trunkId: 'trunk-b', state: 'unregistered', sipStatus: 200 });
  }, 40_000);

  it('takes the dialled number from To when a registered trunk sends the call to our Contact', async () => {
    const bare = await startBareGateway({ registration: { listRetryMs: 60_000 } });
    const sip = await RawSip.open(bare.gateway.sipPort);
    try {
      const offers: string[] = [];
      const watch = bare.bus.subscribe(subjects.sipInbound());
      void (async () => {
        for await (const message of watch) offers.push(sipCodecs.inboundOffer.decode(message.data).to);
      })();
      bare.answer = () => ({ ok: false, sipStatus: 404, reason: 'Not Found', code: 'no_configuration' });
      // The Request-URI is our Contact as registered (user `parley`); the number dialled is in To.
      const call = new RawCall(sip, '+14155550123');
      const invite = call
        .request('INVITE', { body: call.sdp(40_000) })
        .replace(/^INVITE \S+ SIP\/2\.0/, `INVITE sip:parley@127.0.0.1:${bare.gateway.sipPort} SIP/2.0`);
      sip.send(invite);
      await sip.waitFor((m) => m.status === 404, 5_000);
      expect(offers).toEqual(['+14155550123']);
      watch.unsubscribe();
    } finally {
      sip.close();
      await bare.close();
    }
  });
});
