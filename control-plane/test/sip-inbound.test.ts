/**
 * Inbound SIP routing (docs/architecture.md §12): the control plane's `v1.sip.inbound` responder, asked as the SIP
 * gateway asks, with a real engine role and its workers (flite, pocketsphinx) on the test's bus — the NATS of
 * NATS_URL when set. An INVITE to a configuration's number from its trunk's sources is admitted, recorded and
 * dispatched (call id and stream token back); every other INVITE gets the SIP status that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, sipCodecs, subjects, type CallEvent } from '@parley/engine/protocol';
import { SipInboundResponder } from '../src/calls/jobs/sip-inbound-responder.ts';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';
import {
  createSipConfiguration,
  createTrunk,
  createVoiceAgent,
  inviteOffer,
  offerInvite,
  TRUNK_SOURCE,
} from './support/sip.ts';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
let agentId: string;
let trunkId: string;
let engine: EngineRole;
let tts: WorkerRoleHandle;
let stt: WorkerRoleHandle;
let responder: SipInboundResponder;
let persister: CallEventPersister;
const appliedWaiters: { callId: string; type: string; done: () => void }[] = [];

beforeAll(async () => {
  bus = await createIsolatedBus();
  t = await startTestApp({ bus, languageModel: false });
  responder = new SipInboundResponder(t.app.phoneCalls.sipCalls).listen(bus);
  persister = new CallEventPersister(t.db.sql, () => {}, {
    onApplied: (callId, event) => {
      for (const waiter of appliedWaiters.filter((w) => w.callId === callId && w.type === event.type)) waiter.done();
    },
  }).listen(bus);
  tts = await startTestTts(bus);
  stt = await startSttWorkerRole(OFFLINE_SPEECH, bus, () => {});
  engine = await startEngineRole(
    { ...OFFLINE_SPEECH, vad: 'energy', media: { port: 0, host: '127.0.0.1' } },
    bus,
    () => {},
  );
  org = await seedOrganisation(t.db.sql, 'Office');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
  agentId = await createVoiceAgent(t, org.key);
  trunkId = (await createTrunk(t, org.key)).id;
}, 60_000);

afterAll(async () => {
  await persister?.close();
  await responder?.close();
  await engine?.close();
  await stt?.close();
  await tts?.close();
  await t?.close();
  await bus?.close();
});

let numberSeq = 200;
const nextNumber = () => `+1415555${String(numberSeq++).padStart(4, '0')}`;

async function inboundConfiguration(fields: Record<string, unknown> = {}) {
  return createSipConfiguration(t, org.key, {
    sipTrunkId: trunkId,
    type: 'INBOUND',
    agentId,
    phoneNumber: nextNumber(),
    sipReferEnabled: true,
    ...fields,
  });
}

async function endCall(callId: string): Promise<void> {
  const res = await t.call(org.key, {
    method: 'POST',
    url: `/api/v1/voice-sessions/room/call-${callId}/end`,
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('an INVITE a configuration answers', () => {
  it('is admitted, recorded INBOUND sip, dispatched to an engine, and answered with the stream token', async () => {
    const config = await inboundConfiguration();
    const reply = await offerInvite(bus, inviteOffer(config.phoneNumber, { from: '+14155559001' }));
    expect(reply).toMatchObject({
      ok: true,
      organisationId: org.organisationId,
      sipConfigurationId: config.id,
      referEnabled: true,
    });
    if (!reply.ok) throw new Error('refused');
    expect(reply.streamToken.length).toBeGreaterThan(10);
    const [call] = await t.db.sql`select * from call_records where id = ${reply.callId}`;
    expect(call).toMatchObject({
      organisation_id: org.organisationId,
      agent_id: agentId,
      call_type: 'sip',
      call_direction: 'INBOUND',
      call_status: 'INITIATED',
      phone_number: '+14155559001',
      participant_name: 'Pat Caller',
      calling_number: config.phoneNumber,
      source: 'inbound',
      sip_configuration_id: config.id,
      ended_at: null,
    });
    expect(call!.engine_id).toBeTruthy();
    expect(call!.meta_data.sip).toMatchObject({ gatewayId: 'test-gateway', source: TRUNK_SOURCE });
    await endCall(reply.callId);
  });

  it('names the trunk, credentials decrypted, for a bridged transfer when REFER is off (and not when it is on)', async () => {
    const config = await inboundConfiguration({ sipReferEnabled: false });
    const reply = await offerInvite(bus, inviteOffer(config.phoneNumber));
    expect(reply).toMatchObject({
      ok: true,
      referEnabled: false,
      trunk: {
        host: '127.0.0.1',
        port: 5099,
        transport: 'udp',
        username: 'parley',
        password: 'trunk-password',
        fromUser: config.phoneNumber,
      },
    });
    if (reply.ok) await endCall(reply.callId);
    const refer = await inboundConfiguration();
    const referReply = await offerInvite(bus, inviteOffer(refer.phoneNumber));
    expect(referReply.ok && 'trunk' in referReply).toBe(false);
    if (referReply.ok) await endCall(referReply.callId);
  });

  it('matches a source inside a CIDR block, and an IPv4-mapped IPv6 address', async () => {
    const config = await inboundConfiguration();
    const reply = await offerInvite(bus, inviteOffer(config.phoneNumber, { sourceAddress: '2001:db8:1::5' }));
    expect(reply.ok).toBe(true);
    if (reply.ok) await endCall(reply.callId);
    const mapped = await offerInvite(bus, inviteOffer(config.phoneNumber, { sourceAddress: `::ffff:${TRUNK_SOURCE}` }));
    expect(mapped.ok).toBe(true);
    if (mapped.ok) await endCall(mapped.callId);
  });
});

describe('the bill of an inbound SIP call', () => {
  it('bills an answered call once, with the INBOUND surcharge (not the OUTBOUND one)', async () => {
    const config = await inboundConfiguration({
      customerInboundSurchargePerMin: 0.02,
      customerOutboundSurchargePerMin: 0.5,
    });
    await t.db
      .sql`insert into billing_accounts (organisation_id, rate_per_minute_e4) values (${org.organisationId}, 50000)
      on conflict (organisation_id) do update set rate_per_minute_e4 = 50000`;
    const reply = await offerInvite(bus, inviteOffer(config.phoneNumber));
    if (!reply.ok) throw new Error(`refused: ${reply.reason}`);
    await publishApplied(reply.callId, { type: 'telephony', status: 'answered', atEpochMs: Date.now() });
    await publishApplied(reply.callId, { type: 'telephony', status: 'completed', atEpochMs: Date.now() });
    // Reported twice (the gateway retried): the second end changes nothing.
    bus.publish(
      subjects.callEvents(reply.callId),
      callCodecs.event.encode({ type: 'telephony', status: 'completed', atEpochMs: 1 }),
    );
    await publishApplied(reply.callId, {
      type: 'ended',
      reason: 'caller_hangup',
      outcome: 'completed',
      durationMs: 61_000,
      latency: { turns: [] },
    });
    const usage = await t.db.sql<{ rate_e4: string }[]>`select rate_e4 from usage_records
      where voice_session_id = ${reply.callId} and usage_type = 'VOICE_CALL'`;
    expect(usage).toHaveLength(1);
    // 5 cents a minute, plus 2 cents of inbound surcharge (×10⁴).
    expect(Number(usage[0]!.rate_e4)).toBe(70_000);
    const [call] = await t.db.sql`select call_status, is_billed from call_records where id = ${reply.callId}`;
    expect(call).toMatchObject({ call_status: 'COMPLETED', is_billed: true });
  });
});

describe('an INVITE nobody answers', () => {
  it('404 for a number no active INBOUND configuration has', async () => {
    const config = await inboundConfiguration({ isActive: false });
    const before = await countCalls();
    expect(await offerInvite(bus, inviteOffer(config.phoneNumber))).toMatchObject({
      ok: false,
      sipStatus: 404,
      code: 'no_configuration',
    });
    expect(await offerInvite(bus, inviteOffer('+14155550000'))).toMatchObject({ ok: false, sipStatus: 404 });
    expect(await countCalls()).toBe(before);
  });

  it("403 from an address outside the trunk's sources", async () => {
    const config = await inboundConfiguration();
    expect(await offerInvite(bus, inviteOffer(config.phoneNumber, { sourceAddress: '198.51.100.8' }))).toMatchObject({
      ok: false,
      sipStatus: 403,
      code: 'source_not_allowed',
    });
  });

  it('480 when the configuration has no agent', async () => {
    const config = await inboundConfiguration({ agentId: null });
    expect(await offerInvite(bus, inviteOffer(config.phoneNumber))).toMatchObject({
      ok: false,
      sipStatus: 480,
      code: 'no_agent',
    });
  });

  it('480 with the code when the wallet is below the minimum, 403 when suspended; nothing recorded', async () => {
    const poor = await seedOrganisation(t.db.sql, 'Unfunded');
    const poorAgent = await createVoiceAgent(t, poor.key);
    const poorTrunk = await createTrunk(t, poor.key);
    const config = await createSipConfiguration(t, poor.key, {
      sipTrunkId: poorTrunk.id,
      type: 'INBOUND',
      agentId: poorAgent,
      phoneNumber: nextNumber(),
    });
    const unfunded = await offerInvite(bus, inviteOffer(config.phoneNumber));
    expect(unfunded).toMatchObject({ ok: false, sipStatus: 480, code: 'insufficient_balance' });
    await seedWallet(t.db.sql, poor.organisationId, { balanceMinor: 5_000 });
    await t.db.sql`insert into billing_accounts (organisation_id, is_suspended, suspended_reason)
      values (${poor.organisationId}, true, 'chargeback') on conflict (organisation_id) do update set is_suspended = true`;
    const suspended = await offerInvite(bus, inviteOffer(config.phoneNumber));
    expect(suspended).toMatchObject({ ok: false, sipStatus: 403, code: 'suspended' });
    const [counted] = await t.db.sql<{ count: number }[]>`
      select count(*)::int as count from call_records where organisation_id = ${poor.organisationId}`;
    expect(counted!.count).toBe(0);
  });

  it('keeps a hostile From header storable (no NUL, bounded)', async () => {
    const config = await inboundConfiguration();
    const reply = await offerInvite(
      bus,
      inviteOffer(config.phoneNumber, { from: '+1415\u00005559002', fromName: `Eve${'x'.repeat(1_000)}\u0000` }),
    );
    if (!reply.ok) throw new Error(`refused: ${reply.reason}`);
    const [call] = await t.db.sql`select participant_name, phone_number from call_records where id = ${reply.callId}`;
    expect(call!.phone_number).toBe('+14155559002');
    expect(call!.participant_name).toMatch(/^Evex+$/);
    expect(call!.participant_name.length).toBe(255);
    await endCall(reply.callId);
  });

  it('400 for a malformed offer', async () => {
    const reply = await bus.request(subjects.sipInbound(), JSON.stringify({ to: 5 }), { timeoutMs: 5_000 });
    expect(sipCodecs.inboundReply.decode(reply.data)).toMatchObject({
      ok: false,
      sipStatus: 400,
      code: 'malformed_offer',
    });
  });
});

describe('maxConcurrentCalls', () => {
  it('answers 486 Busy at the limit when no caller may wait', async () => {
    const config = await inboundConfiguration({ maxConcurrentCalls: 1 });
    const first = await offerInvite(bus, inviteOffer(config.phoneNumber));
    expect(first.ok).toBe(true);
    const second = await offerInvite(bus, inviteOffer(config.phoneNumber));
    expect(second).toMatchObject({ ok: false, sipStatus: 486, code: 'queue_full' });
    if (first.ok) await endCall(first.callId);
    const third = await offerInvite(bus, inviteOffer(config.phoneNumber));
    expect(third.ok).toBe(true);
    if (third.ok) await endCall(third.callId);
  });

  it('queues a caller while the line is taken and admits it when the line comes free', async () => {
    const config = await inboundConfiguration({ maxConcurrentCalls: 1, maxQueueSize: 1, callTimeoutMs: 5_000 });
    const first = await offerInvite(bus, inviteOffer(config.phoneNumber));
    if (!first.ok) throw new Error(`first refused: ${first.reason}`);
    const waiting = offerInvite(bus, inviteOffer(config.phoneNumber));
    await until(() => t.app.phoneCalls.sipCalls.queued(config.id) === 1);
    // The queue holds one: a third caller is busy at once.
    expect(await offerInvite(bus, inviteOffer(config.phoneNumber))).toMatchObject({
      sipStatus: 486,
      code: 'queue_full',
    });
    await endCall(first.callId);
    const second = await waiting;
    expect(second.ok).toBe(true);
    if (second.ok) await endCall(second.callId);
  });

  it('gives a queued caller up at callTimeoutMs (486 queue_timeout)', async () => {
    const config = await inboundConfiguration({ maxConcurrentCalls: 1, maxQueueSize: 1, callTimeoutMs: 1_000 });
    const first = await offerInvite(bus, inviteOffer(config.phoneNumber));
    const started = Date.now();
    expect(await offerInvite(bus, inviteOffer(config.phoneNumber))).toMatchObject({
      sipStatus: 486,
      code: 'queue_timeout',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    if (first.ok) await endCall(first.callId);
  });

  it("answers 486 when the plan's lines are all taken (a 402-class refusal)", async () => {
    const small = await seedOrganisation(t.db.sql, 'One line');
    await seedWallet(t.db.sql, small.organisationId, { balanceMinor: 5_000 });
    const smallApp = await startTestApp({ bus, db: t.db, defaultConcurrentCalls: 1, languageModel: false });
    const smallResponder = new SipInboundResponder(smallApp.app.phoneCalls.sipCalls).listen(bus);
    // Only the small app answers from here: the main responder steps aside.
    await responder.close();
    try {
      const smallAgent = await createVoiceAgent(smallApp, small.key);
      const smallTrunk = await createTrunk(smallApp, small.key);
      const config = await createSipConfiguration(smallApp, small.key, {
        sipTrunkId: smallTrunk.id,
        type: 'INBOUND',
        agentId: smallAgent,
        phoneNumber: nextNumber(),
      });
      const first = await offerInvite(bus, inviteOffer(config.phoneNumber));
      expect(first.ok).toBe(true);
      const second = await offerInvite(bus, inviteOffer(config.phoneNumber));
      expect(second).toMatchObject({ ok: false, sipStatus: 486, code: 'plan_call_limit' });
      expect(second.ok || second.reason).toMatch(/Plan call limit reached/);
    } finally {
      await smallResponder.close();
      await smallApp.close();
      responder = new SipInboundResponder(t.app.phoneCalls.sipCalls).listen(bus);
    }
  });
});

describe('without an engine', () => {
  it('answers 503 and finishes the recorded call FAILED', async () => {
    const config = await inboundConfiguration();
    await engine.close();
    try {
      const reply = await offerInvite(bus, inviteOffer(config.phoneNumber));
      expect(reply).toMatchObject({ ok: false, sipStatus: 503, code: 'engine_unavailable' });
      const [call] = await t.db.sql`select call_status, call_outcome, meta_data from call_records
        where sip_configuration_id = ${config.id}`;
      expect(call).toMatchObject({ call_status: 'FAILED', call_outcome: 'failed' });
      expect(call!.meta_data.endReason).toBe('engine_unavailable');
    } finally {
      engine = await startEngineRole(
        { ...OFFLINE_SPEECH, vad: 'energy', media: { port: 0, host: '127.0.0.1' } },
        bus,
        () => {},
      );
    }
  });
});

/** Publishes `event` as its source would and waits until the persister applied it. */
async function publishApplied(callId: string, event: CallEvent): Promise<void> {
  const applied = new Promise<void>((done) => appliedWaiters.push({ callId, type: event.type, done }));
  bus.publish(subjects.callEvents(callId), callCodecs.event.encode(event));
  await applied;
}

async function countCalls(): Promise<number> {
  const [counted] = await t.db.sql<{ count: number }[]>`select count(*)::int as count from call_records`;
  return counted!.count;
}

/** Waits for `condition` (checked each tick), failing after 5 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
