/**
 * Outbound SIP calls (docs/architecture.md §12): POST /voice/session with callType sip for an agent without a carrier
 * number goes over the organisation's OUTBOUND SIP configuration — admitted, recorded, dispatched to a real engine
 * role (flite, pocketsphinx workers) and dialled by a test double of the SIP gateway that speaks the bus contract
 * (`v1.sip.dial`, `v1.sip.<callId>.control`, `telephony` call events). The events' effect on the record and the
 * bill goes through the real event persister; the test's bus is the NATS of NATS_URL when set.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallEvent } from '@parley/engine/protocol';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { SipCallControl } from '../src/calls/jobs/sip-call-control.ts';
import { CallSweeper } from '../src/calls/jobs/call-sweeper.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';
import { createSipConfiguration, createTrunk, createVoiceAgent, FakeSipGateway } from './support/sip.ts';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
let agentId: string;
let trunkId: string;
let engine: EngineRole;
let tts: WorkerRoleHandle;
let stt: WorkerRoleHandle;
let persister: CallEventPersister;
let control: SipCallControl;
let gateway: FakeSipGateway | undefined;
const appliedWaiters: { callId: string; type: string; done: () => void }[] = [];

/** Pay-as-you-go price per minute set for the organisation (US cents ×10⁴): 5 cents. */
const RATE_E4 = 50_000;
/** The outbound configuration's surcharge, dollars per minute: 1 cent, i.e. 10 000 cents ×10⁻⁴. */
const SURCHARGE = 0.01;

beforeAll(async () => {
  bus = await createIsolatedBus();
  t = await startTestApp({ bus, languageModel: false, rateLimits: { callPlacement: 10_000 } });
  control = new SipCallControl(t.db.sql, bus);
  persister = new CallEventPersister(t.db.sql, () => {}, {
    onApplied: (callId, event) => {
      control.onEventApplied(callId, event);
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
  org = await seedOrganisation(t.db.sql, 'Dialler');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
  await t.db
    .sql`insert into billing_accounts (organisation_id, rate_per_minute_e4) values (${org.organisationId}, ${RATE_E4})
    on conflict (organisation_id) do update set rate_per_minute_e4 = ${RATE_E4}`;
  agentId = await createVoiceAgent(t, org.key);
  trunkId = (await createTrunk(t, org.key)).id;
}, 60_000);

beforeEach(() => {
  gateway = new FakeSipGateway(bus);
});

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  // Each case's configurations step aside, so the next finds only its own.
  await t.db.sql`update sip_configurations set is_active = false where organisation_id = ${org.organisationId}`;
});

afterAll(async () => {
  await persister?.close();
  await control?.close();
  await engine?.close();
  await stt?.close();
  await tts?.close();
  await t?.close();
  await bus?.close();
});

let numberSeq = 300;
const nextNumber = () => `+1415555${String(numberSeq++).padStart(4, '0')}`;

async function outboundConfiguration(fields: Record<string, unknown> = {}) {
  return createSipConfiguration(t, org.key, {
    sipTrunkId: trunkId,
    type: 'OUTBOUND',
    phoneNumber: nextNumber(),
    callTimeoutMs: 25_000,
    customerOutboundSurchargePerMin: SURCHARGE,
    ...fields,
  });
}

function placeCall(body: Record<string, unknown> = {}) {
  return t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/session',
    payload: { agentId, callType: 'sip', participantName: 'Sam', participantNumber: nextNumber(), ...body },
  });
}

/** Publishes `event` as its source would and waits until the persister applied it. */
async function publishApplied(callId: string, event: CallEvent): Promise<void> {
  const applied = new Promise<void>((done) => appliedWaiters.push({ callId, type: event.type, done }));
  bus.publish(subjects.callEvents(callId), callCodecs.event.encode(event));
  await applied;
}

const telephony = (status: Extract<CallEvent, { type: 'telephony' }>['status'], sipStatus?: number): CallEvent => ({
  type: 'telephony',
  status,
  atEpochMs: Date.now(),
  ...(sipStatus && { sipStatus }),
});

async function callRow(callId: string) {
  const [row] = await t.db.sql`select * from call_records where id = ${callId}`;
  return row!;
}

async function usageOf(callId: string) {
  return t.db.sql<{ id: string; rate_e4: string; total_e4: string }[]>`
    select id, rate_e4, total_e4 from usage_records where voice_session_id = ${callId} and usage_type = 'VOICE_CALL'`;
}

describe('a call over the OUTBOUND SIP configuration', () => {
  it('is recorded, dispatched and dialled through the trunk with its decrypted credentials', async () => {
    const config = await outboundConfiguration({ sipReferEnabled: true });
    const participantNumber = nextNumber();
    const res = await placeCall({ participantNumber });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ success: true, callType: 'sip', status: 'initiated' });
    const callId = res.json().data.sessionId as string;
    const dial = await gateway!.dialOf(callId);
    expect(dial).toMatchObject({
      callId,
      organisationId: org.organisationId,
      to: participantNumber,
      trunk: {
        host: '127.0.0.1',
        port: 5099,
        transport: 'udp',
        username: 'parley',
        password: 'trunk-password',
        fromUser: config.phoneNumber,
      },
      ringTimeoutMs: 25_000,
      sipConfigurationId: config.id,
      referEnabled: true,
    });
    expect(dial.streamToken.length).toBeGreaterThan(10);
    expect(await callRow(callId)).toMatchObject({
      call_type: 'sip',
      call_direction: 'OUTBOUND',
      call_status: 'INITIATED',
      calling_number: config.phoneNumber,
      phone_number: participantNumber,
      sip_configuration_id: config.id,
    });
    // The API never shows the password it handed the gateway.
    const read = await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${callId}` });
    expect(read.body).not.toContain('trunk-password');
  });

  it('ringing → RINGING, answered → IN_PROGRESS, completed → COMPLETED and billed once with the surcharge', async () => {
    await outboundConfiguration();
    const res = await placeCall();
    const callId = res.json().data.sessionId as string;
    await gateway!.dialOf(callId);
    await publishApplied(callId, telephony('ringing'));
    expect((await callRow(callId)).call_status).toBe('RINGING');
    await publishApplied(callId, telephony('answered'));
    const answered = await callRow(callId);
    expect(answered.call_status).toBe('IN_PROGRESS');
    expect(answered.answered_at).toBeInstanceOf(Date);
    await publishApplied(callId, telephony('completed'));
    const ended = await callRow(callId);
    expect(ended).toMatchObject({ call_status: 'COMPLETED', call_outcome: 'completed', is_billed: true });
    expect(ended.meta_data.endReason).toBe('sip_completed');
    const usage = await usageOf(callId);
    expect(usage).toHaveLength(1);
    expect(Number(usage[0]!.rate_e4)).toBe(RATE_E4 + SURCHARGE * 1_000_000);
    // The engine's own `ended` arrives later: nothing is billed twice.
    await publishApplied(callId, {
      type: 'ended',
      reason: 'caller_hangup',
      outcome: 'completed',
      durationMs: 4_000,
      latency: { turns: [] },
    });
    expect(await usageOf(callId)).toHaveLength(1);
    const [debits] = await t.db.sql<{ count: number }[]>`select count(*)::int as count from ledger_transactions
      where idempotency_key = ${`usage:${usage[0]!.id}`}`;
    expect(debits!.count).toBe(1);
    // The engine ended the call: the gateway is told to hang the leg up (a no-op for a leg already over).
    expect(await gateway!.controlOf(callId)).toMatchObject({ type: 'hangup' });
  });

  it.each([
    ['busy', 486, 'busy'],
    ['no_answer', undefined, 'no_answer'],
    ['rejected', 603, 'rejected'],
    ['failed', 503, 'failed'],
    ['cancelled', 487, 'no_answer'],
  ] as const)('%s (SIP %s) ends it FAILED, outcome %s, and bills nothing', async (status, sipStatus, outcome) => {
    await outboundConfiguration();
    const callId = (await placeCall()).json().data.sessionId as string;
    await gateway!.dialOf(callId);
    // The engine's session (pending, waiting for media) is told the leg is over.
    const engineControl = bus.subscribe(subjects.callControl(callId));
    await publishApplied(callId, telephony('ringing'));
    await publishApplied(callId, telephony(status, sipStatus));
    for await (const message of engineControl) {
      expect(callCodecs.control.decode(message.data)).toEqual({ type: 'end', reason: `sip_${status}` });
      break;
    }
    const row = await callRow(callId);
    expect(row).toMatchObject({ call_status: 'FAILED', call_outcome: outcome, is_billed: false });
    expect(row.ended_at).toBeInstanceOf(Date);
    expect(row.meta_data.endReason).toBe(`sip_${status}`);
    if (sipStatus) expect(row.call_outcome_detail).toBe(`SIP ${sipStatus}`);
    expect(await usageOf(callId)).toHaveLength(0);
    // The engine's pending call gives up later without media: the leg's outcome stands.
    await publishApplied(callId, {
      type: 'ended',
      reason: 'media_never_connected',
      outcome: 'no_answer',
      durationMs: 0,
      latency: { turns: [] },
    });
    expect(await callRow(callId)).toMatchObject({ call_status: 'FAILED', call_outcome: outcome });
  });

  it('the end route hangs the SIP leg up through the gateway', async () => {
    await outboundConfiguration();
    const callId = (await placeCall()).json().data.sessionId as string;
    await gateway!.dialOf(callId);
    const res = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/voice-sessions/room/call-${callId}/end`,
      payload: { reason: 'operator' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await gateway!.controlOf(callId)).toEqual({ type: 'hangup', reason: 'operator' });
  });

  it('a scheduled call is dialled over its configuration when it comes due', async () => {
    const config = await outboundConfiguration();
    const res = await placeCall({ callTime: new Date(Date.now() + 3_600_000).toISOString() });
    expect(res.statusCode, res.body).toBe(201);
    const callId = res.json().data.sessionId as string;
    expect(await callRow(callId)).toMatchObject({ call_status: 'SCHEDULED', sip_configuration_id: config.id });
    expect(gateway!.dials).toHaveLength(0);
    await t.app.phoneCalls.placement.startRecorded(callId);
    expect((await gateway!.dialOf(callId)).sipConfigurationId).toBe(config.id);
    expect((await callRow(callId)).call_status).toBe('INITIATED');
  });
});

describe('the sweeper', () => {
  it('finishes a SIP call whose engine went silent and hangs its leg up', async () => {
    await outboundConfiguration();
    const callId = (await placeCall()).json().data.sessionId as string;
    await gateway!.dialOf(callId);
    await t.db.sql`update call_records set last_event_at = now() - interval '1 hour' where id = ${callId}`;
    const finished = await new CallSweeper(t.db.sql, bus, () => {}, { silenceMs: 60_000 }).runOnce();
    expect(finished).toContain(callId);
    expect(await gateway!.controlOf(callId)).toEqual({ type: 'hangup', reason: 'finalised_by_control_plane' });
    expect((await callRow(callId)).meta_data.endReason).toBe('engine_silent');
  });
});

describe('refusals', () => {
  it('400 "no calling number or SIP configuration" without an active OUTBOUND configuration', async () => {
    const res = await placeCall();
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toMatch(/No calling number or SIP configuration/);
  });

  it('403 for a destination outside the calling scope; ALLOWED_COUNTRIES lets the listed ones through', async () => {
    await outboundConfiguration();
    const abroad = await placeCall({ participantNumber: '+442079460000' });
    expect(abroad.statusCode, abroad.body).toBe(403);
    expect(abroad.json().message).toMatch(/SAME_COUNTRY/);
    await t.db.sql`update sip_configurations set is_active = false where organisation_id = ${org.organisationId}`;
    await outboundConfiguration({ callingScope: 'ALLOWED_COUNTRIES', allowedCountries: ['GB'] });
    const allowed = await placeCall({ participantNumber: '+442079460001' });
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect((await placeCall({ participantNumber: '+33142685300' })).statusCode).toBe(403);
  });

  it('409 when every line of the configuration is live', async () => {
    await outboundConfiguration({ maxConcurrentCalls: 1 });
    expect((await placeCall()).statusCode).toBe(201);
    const second = await placeCall();
    expect(second.statusCode, second.body).toBe(409);
    expect(second.json().message).toMatch(/maxConcurrentCalls/);
  });

  it('503 naming the missing gateway when none takes the dial; the call is FAILED', async () => {
    await outboundConfiguration();
    await gateway!.close();
    gateway = undefined;
    const res = await placeCall();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().message).toMatch(/no SIP gateway took the call/);
    const [row] = await t.db.sql`select call_status, meta_data from call_records
      where organisation_id = ${org.organisationId} order by created_at desc, id desc limit 1`;
    expect(row).toMatchObject({ call_status: 'FAILED' });
    expect(row!.meta_data.endReason).toBe('sip_gateway_unavailable');
  });

  it('502 when the gateway refuses the dial for good', async () => {
    await outboundConfiguration();
    gateway!.answer = { ok: false, code: 'bad_target', message: 'the trunk host does not resolve', retryable: false };
    const res = await placeCall();
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().message).toMatch(/the trunk host does not resolve/);
  });

  it('402 when the wallet is below the minimum, nothing dialled', async () => {
    const poor = await seedOrganisation(t.db.sql, 'Poor dialler');
    const poorAgent = await createVoiceAgent(t, poor.key);
    const poorTrunk = await createTrunk(t, poor.key);
    await createSipConfiguration(t, poor.key, {
      sipTrunkId: poorTrunk.id,
      type: 'OUTBOUND',
      phoneNumber: nextNumber(),
    });
    const res = await t.call(poor.key, {
      method: 'POST',
      url: '/api/v1/voice/session',
      payload: { agentId: poorAgent, callType: 'sip', participantName: 'Sam', participantNumber: nextNumber() },
    });
    expect(res.statusCode, res.body).toBe(402);
    expect(gateway!.dials).toHaveLength(0);
  });
});
