/**
 * The campaign dialler over SIP, nothing stood in for on the way (docs/architecture.md §13, §12): a campaign whose
 * agent has no carrier number dials through the organisation's OUTBOUND SIP configuration. Two dialler instances
 * (two control planes) place each contact through the one launch path — admitted, recorded, dispatched to a real
 * engine — and `v1.sip.dial` to the real SIP gateway, which INVITEs SIPp, the trunk and far end (it challenges
 * with digest, answers, hangs up after a few seconds). The configuration allows 2 calls at once; the campaign has
 * 5 contacts: the gateway never holds more than 2 legs, the far end sees each contact dialled once, and every
 * contact ends COMPLETED.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { SipGateway } from '@parley/sip-gateway';
import { freeMediaPort, freePort, rtpPackets, runSipp, writePcap } from '@parley/sip-gateway/testing';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { SipCallControl } from '../src/calls/jobs/sip-call-control.ts';
import { CampaignDialler } from '../src/campaigns/dialler.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createSipConfiguration, createTrunk, createVoiceAgent } from './support/sip.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';

/** The configuration's maxConcurrentCalls, below the plan's lines (PLAN_LINES), so it is the bound. */
const SIP_LINES = 2;
const PLAN_LINES = 10;
const CONTACTS = 5;
/** How long the far end stays on after answering, ms: long enough for calls to overlap if the limit let them. */
const HOLD_MS = 3_000;
/** The trunk's digest credentials (test/support/sip.ts createTrunk's). */
const TRUNK_USER = 'parley';
const TRUNK_PASSWORD = 'trunk-password';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
let engine: EngineRole;
let tts: WorkerRoleHandle;
let stt: WorkerRoleHandle;
let control: SipCallControl;
let persister: CallEventPersister;
let gateway: SipGateway;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-dialler-sip-'));
  bus = await createIsolatedBus();
  t = await startTestApp({ bus, languageModel: false, defaultConcurrentCalls: PLAN_LINES });
  control = new SipCallControl(t.db.sql, bus);
  persister = new CallEventPersister(t.db.sql, () => {}, {
    onApplied: (callId, event) => control.onEventApplied(callId, event),
  }).listen(bus);
  tts = await startTestTts(bus);
  stt = await startSttWorkerRole(OFFLINE_SPEECH, bus, () => {});
  engine = await startEngineRole({ ...OFFLINE_SPEECH, vad: 'energy' }, bus, () => {});
  const rtpPortMin = 47_000 + Math.floor(Math.random() * 40) * 50;
  gateway = await SipGateway.start(bus, { host: '127.0.0.1', sipPort: 0, rtpPortMin, rtpPortMax: rtpPortMin + 29 });
  org = await seedOrganisation(t.db.sql, 'Dialler over SIP');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 50_000 });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await engine?.close();
  await stt?.close();
  await tts?.close();
  await persister?.close();
  await control?.close();
  await t?.close();
  await bus?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The INVITEs SIPp received, from its message trace: dialled user → distinct SIP Call-IDs. */
function invitesByUser(trace: string): Map<string, Set<string>> {
  const dialled = new Map<string, Set<string>>();
  for (const block of trace.split(/\n-{20,}[^\n]*\n/)) {
    const invite = /message received[^\n]*\n\s*INVITE sip:([^@;\s]+)@/i.exec(block);
    const callId = /^Call-ID:\s*(\S+)/im.exec(block);
    if (!invite || !callId) continue;
    const calls = dialled.get(invite[1]!) ?? new Set<string>();
    calls.add(callId[1]!);
    dialled.set(invite[1]!, calls);
  }
  return dialled;
}

describe('the campaign dialler over an OUTBOUND SIP configuration', () => {
  it('dials every contact once through the gateway, never more legs at once than the configuration allows', async () => {
    const trunkPort = await freePort();
    const agentId = await createVoiceAgent(t, org.key);
    const trunk = await createTrunk(t, org.key, {
      host: '127.0.0.1',
      port: trunkPort,
      sourceAddresses: ['127.0.0.1/32'],
    });
    await createSipConfiguration(t, org.key, {
      sipTrunkId: trunk.id,
      type: 'OUTBOUND',
      phoneNumber: '+14155550177',
      maxConcurrentCalls: SIP_LINES,
      callTimeoutMs: 20_000,
    });
    const created = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/campaigns',
      payload: {
        name: 'Over SIP',
        organisationId: org.organisationId,
        voiceAgentId: agentId,
        callStartTime: '00:00',
        callEndTime: '23:59',
        timezone: 'UTC',
        retryCount: 0,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const campaignId = created.json().data.id as string;
    const phones = Array.from({ length: CONTACTS }, (_, i) => `+1415555${String(8100 + i)}`);
    const added = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/campaigns/${campaignId}/contacts`,
      payload: { contacts: phones.map((phone, i) => ({ phone, name: `Person ${i}` })) },
    });
    expect(added.json().data.added, added.body).toBe(CONTACTS);

    // The far end: answers each call (after a digest challenge), plays a moment of silence, hangs up after HOLD_MS.
    const pcap = join(dir, 'silence.pcap');
    await writePcap(pcap, rtpPackets(new Int16Array(1_600), { leadMs: 100, tailMs: 100 }));
    const trace = join(dir, 'far-end-messages.log');
    const farEnd = runSipp({
      scenario: 'uas-answer.xml',
      target: 0,
      uas: { port: trunkPort },
      dir,
      calls: CONTACTS,
      values: {
        PCAP: pcap,
        HOLD_MS,
        MEDIA_PORT: await freeMediaPort(),
        USER: TRUNK_USER,
        PASSWORD: TRUNK_PASSWORD,
      },
      extra: ['-trace_msg', '-message_file', trace],
      timeoutMs: 120_000,
    });
    // SIPp listens within a few ms; the gateway's Timer A would retransmit an early INVITE anyway.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const started = await t.call(org.key, { method: 'POST', url: `/api/v1/campaigns/${campaignId}/start` });
    expect(started.json().data.status, started.body).toBe('IN_PROGRESS');
    const logged: { level: string; message: string }[] = [];
    const clock = () => new Date('2027-05-04T12:00:00Z');
    const diallers = ['sip-a', 'sip-b'].map((instanceId) =>
      new CampaignDialler(t.db.sql, t.app.phoneCalls.placement, {
        admission: { defaultConcurrentCalls: PLAN_LINES },
        now: clock,
        instanceId,
        intervalMs: 200,
        log: (level, message) => logged.push({ level, message }),
      }).start(),
    );
    // The legs the gateway holds (ringing or answered), watched while the campaign runs.
    let mostLegs = 0;
    const watch = setInterval(() => {
      const { activeCalls, pendingCalls } = gateway.health;
      mostLegs = Math.max(mostLegs, activeCalls + pendingCalls);
    }, 10);
    try {
      await expect
        .poll(
          async () => (await t.call(org.key, { method: 'GET', url: `/api/v1/campaigns/${campaignId}` })).json().data,
          { timeout: 90_000, interval: 250 },
        )
        .toMatchObject({ status: 'COMPLETED', completedCalls: CONTACTS, failedCalls: 0, inProgressCalls: 0 });
    } finally {
      clearInterval(watch);
      await Promise.all(diallers.map((d) => d.stop()));
    }
    const far = await farEnd;
    expect(far.errors, far.stdout).toBe('');
    expect(far.code, far.stdout).toBe(0);

    // Both lines were used at once, and never a third.
    expect(mostLegs).toBe(SIP_LINES);
    // Each contact dialled once over the trunk: one SIP call (Call-ID) per number at the far end, one call record.
    const dialled = invitesByUser(await readFile(trace, 'latin1'));
    expect([...dialled.keys()].sort()).toEqual(phones);
    for (const phone of phones) expect(dialled.get(phone)!.size, phone).toBe(1);
    const records = await t.db.sql<
      { phone_number: string; n: number; over_sip: number; answered: number; completed: number }[]
    >`
      select phone_number, count(*)::int as n, count(sip_configuration_id)::int as over_sip,
             count(answered_at)::int as answered, count(*) filter (where call_status = 'COMPLETED')::int as completed
        from call_records where campaign_id = ${campaignId} group by phone_number order by phone_number`;
    expect(records).toEqual(
      phones.map((phone) => ({ phone_number: phone, n: 1, over_sip: 1, answered: 1, completed: 1 })),
    );
    const contacts = await t.db.sql<{ status: string; attempts: number }[]>`
      select status, attempts from campaign_contacts where campaign_id = ${campaignId}`;
    expect(contacts).toEqual(phones.map(() => ({ status: 'COMPLETED', attempts: 1 })));
    // A full line is waited out, never reported as a failure.
    expect(logged.filter((l) => l.level !== 'info')).toEqual([]);
    expect(gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: gateway.health.rtpPortsTotal });
  }, 150_000);
});
