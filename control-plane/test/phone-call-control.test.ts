/**
 * What happens to phone calls besides the conversation, end to end against the carrier simulator: scheduled calls
 * placed when due (once, with two schedulers racing), callbacks (now, later, for a chat conversation), destinations
 * outside a number's calling scope (403), the carrier told to hang up when the call is ended on Parley's side or its
 * stream drops, and transfers carried out through the carrier's API (or refused, the agent staying on the line).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { SimStream } from '@parley/engine/testing';
import { CallScheduler } from '../src/calls/jobs/call-scheduler.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { seedAgent, seedCall, seedOrganisation, updateAgentColumns } from './support/seed.ts';

let rig: PhoneCallRig;
let agentB: string;
let agentA: string;
let agentC: string;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
  agentB = await rig.createAgent(OUR_NUMBERS['carrier-b']);
  agentA = await rig.createAgent(OUR_NUMBERS['carrier-a']);
  agentC = await rig.createAgent(OUR_NUMBERS['carrier-c']);
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** A live call on `agentId` to a fresh number: placed, answered, greeted; answers the call and its stream. */
async function liveCall(agentId: string, ourNumber: string) {
  const res = await rig.place({ agentId, participantNumber: rig.nextNumber(ourNumber) });
  expect(res.statusCode, res.body).toBe(201);
  const callId = res.json().data.sessionId as string;
  const watch = rig.watchEvents(callId);
  const call = await rig.sim.nextCall();
  const stream = await call.stream;
  await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
  await waitFor(
    () => rig.record(callId),
    (r) => r.call_status === 'IN_PROGRESS',
    'the call to be in progress',
  );
  // The greeting has played in full once the agent listens.
  await waitFor(
    () => watch.events,
    (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
    'the agent to listen',
    20_000,
  );
  watch.stop();
  return { callId, call, stream };
}

describe('scheduled calls', () => {
  it('are placed once when due, however many schedulers race for them', async () => {
    const participantNumber = rig.nextNumber();
    const res = await rig.place({ agentId: agentB, participantNumber, callTime: inSeconds(1.5) });
    expect(res.statusCode, res.body).toBe(201);
    const callId = res.json().data.sessionId as string;
    expect((await rig.record(callId)).call_status).toBe('SCHEDULED');

    // Two control-plane instances' schedulers, polling fast.
    const schedulers = [0, 1].map(() =>
      new CallScheduler(rig.db.sql, rig.app.phoneCalls.placement, () => {}, { intervalMs: 50 }).start(),
    );
    try {
      const call = await rig.sim.nextCall(10_000);
      expect(call.to).toBe(participantNumber);
      const stream = await call.stream;
      await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
      const row = await rig.record(callId);
      expect(row).toMatchObject({ call_status: 'IN_PROGRESS', scheduled_status: 'DISPATCHED' });
      expect(new Date(row.dispatched_at as string).getTime()).toBeGreaterThanOrEqual(
        new Date(row.scheduled_time as string).getTime(),
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(rig.sim.calls.filter((c) => c.to === participantNumber)).toHaveLength(1);
      await call.hangup();
      await waitFor(
        () => rig.record(callId),
        (r) => r.ended_at !== null,
        'the call to end',
      );
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
    }
  }, 60_000);

  it('finishes a scheduled call FAILED when its carrier account is gone by the time it is due', async () => {
    const res = await rig.place({ agentId: agentB, participantNumber: rig.nextNumber(), callTime: inSeconds(1) });
    const callId = res.json().data.sessionId as string;
    await rig.db
      .sql`update telephony_integrations set is_active = false where organisation_id = ${rig.org.organisationId} and provider = 'carrier-b'`;
    try {
      await new Promise((r) => setTimeout(r, 1_100));
      const scheduler = new CallScheduler(rig.db.sql, rig.app.phoneCalls.placement);
      expect(await scheduler.runOnce()).toEqual([callId]);
      expect(await rig.record(callId)).toMatchObject({
        call_status: 'FAILED',
        scheduled_status: 'FAILED',
        call_outcome: 'failed',
      });
      expect(await scheduler.runOnce()).toEqual([]);
    } finally {
      await rig.db
        .sql`update telephony_integrations set is_active = true where organisation_id = ${rig.org.organisationId} and provider = 'carrier-b'`;
    }
  });
});

describe('POST /voice/callback', () => {
  it('calls the person of an earlier call back now, or schedules it, keeping its variables and the metaData given', async () => {
    const participantNumber = rig.nextNumber();
    const earlier = await seedCall(rig.db.sql, rig.org.organisationId, agentB, {
      call_status: 'COMPLETED',
      ended_at: new Date(),
      phone_number: participantNumber,
      participant_name: 'Meera',
      calling_number: OUR_NUMBERS['carrier-b'],
      custom_variables: { plan: 'gold' },
    });
    const room = `room-${earlier}`;
    const later = await rig.callback({
      roomName: room,
      dateTime: inSeconds(3600),
      metaData: { reason: 'asked for a callback' },
    });
    expect(later.statusCode, later.body).toBe(201);
    expect(later.json().data).toMatchObject({
      success: true,
      callType: 'sip',
      originalRoomName: room,
      originalSessionId: earlier,
      scheduledFor: expect.any(String),
    });
    const scheduled = await rig.record(later.json().data.sessionId);
    expect(scheduled).toMatchObject({
      call_status: 'SCHEDULED',
      phone_number: participantNumber,
      participant_name: 'Meera',
      calling_number: OUR_NUMBERS['carrier-b'],
      custom_variables: { plan: 'gold', callbackMetaData: JSON.stringify({ reason: 'asked for a callback' }) },
    });
    // The same callback again within 5 seconds is a duplicate.
    expect((await rig.callback({ roomName: room, dateTime: inSeconds(3600) })).statusCode).toBe(409);

    const otherNumber = rig.nextNumber();
    const second = await seedCall(rig.db.sql, rig.org.organisationId, agentB, {
      call_status: 'COMPLETED',
      ended_at: new Date(),
      phone_number: otherNumber,
    });
    const now = await rig.callback({ roomName: `room-${second}` });
    expect(now.statusCode, now.body).toBe(201);
    expect(now.json().data.scheduledFor).toBeNull();
    const call = await rig.sim.nextCall();
    expect(call.to).toBe(otherNumber);
    await call.stream;
    await call.hangup();
  }, 60_000);

  it("has a chat conversation called back by the chat agent's callback voice agent, and refuses what it cannot call", async () => {
    const chatAgent = await seedAgent(rig.db.sql, rig.org.organisationId, 'CHAT');
    const chatNumber = rig.nextNumber();
    const chat = await seedCall(rig.db.sql, rig.org.organisationId, chatAgent, {
      call_type: 'chat',
      phone_number: chatNumber,
      call_status: 'COMPLETED',
      ended_at: new Date(),
    });
    const refused = await rig.callback({ roomName: `room-${chat}`, dateTime: inSeconds(600) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/callback agent/);
    await updateAgentColumns(rig.db.sql, chatAgent, { callback_agent_id: agentB });
    const placed = await rig.callback({ roomName: `room-${chat}`, dateTime: inSeconds(600) });
    expect(placed.statusCode, placed.body).toBe(201);
    expect((await rig.record(placed.json().data.sessionId)).agent_id).toBe(agentB);

    const noNumber = await seedCall(rig.db.sql, rig.org.organisationId, agentB, {
      call_type: 'web',
      call_status: 'COMPLETED',
      ended_at: new Date(),
    });
    expect((await rig.callback({ roomName: `room-${noNumber}` })).json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'body.roomName' }],
    });
    expect((await rig.callback({ roomName: 'room-nothing-here' })).statusCode).toBe(404);
    expect((await rig.callback({ roomName: `room-${noNumber}`, dateTime: inSeconds(-60) })).statusCode).toBe(400);
    const other = await seedOrganisation(rig.db.sql, 'Elsewhere');
    expect((await rig.callback({ roomName: `room-${noNumber}` }, other.key)).statusCode).toBe(403);
  });
});

describe('barge-in on a phone call', () => {
  const LONG_REPLY =
    'Let me check the calendar for you. We have openings on Monday morning. There is also Tuesday at ten. ' +
    'Wednesday afternoon is free as well. Thursday is fully booked I am afraid. Friday has a slot at four.';

  const AGENTS = { 'carrier-a': () => agentA, 'carrier-b': () => agentB, 'carrier-c': () => agentC } as const;

  it.each([['carrier-a'], ['carrier-b'], ['carrier-c']] as const)(
    '%s: the caller cuts in, the carrier is told to clear, and the line keeps what was played',
    async (carrier) => {
      const { callId, call, stream } = await liveCall(AGENTS[carrier](), OUR_NUMBERS[carrier]);
      rig.llm.fake.chat.enqueue({ tokens: LONG_REPLY.split(/(?<= )/) });
      const watch = rig.watchEvents(callId);
      await stream.pause(300);
      await stream.sayWav(await rig.fliteWav('when is my appointment'));
      await stream.pause(500);
      // The caller cuts in once the reply is playing: its first clause has been played (its mark echoed).
      await waitFor(
        () => watch.events,
        (e) => e.some((x) => x.type === 'state' && x.state === 'speaking'),
        'the reply to start',
        30_000,
      );
      const marksBeforeReply = stream.marks().length;
      await stream.until(() => stream.marks().length > marksBeforeReply, "the reply's first clause played", 30_000);
      void stream.sayWav(await rig.fliteWav('wait wait I need to change the day of my appointment please'));
      await stream.until(() => stream.record.clears.length >= 1, 'the clear', 20_000);
      const cut = await waitFor(
        () => watch.events,
        (e) => e.some((x) => x.type === 'transcript' && x.speaker === 'assistant' && x.interrupted === true),
        'the interrupted line',
      );
      watch.stop();
      const line = cut.find((x) => x.type === 'transcript' && x.interrupted === true);
      if (line?.type !== 'transcript') throw new Error('unreachable');
      expect(line.text, line.text).not.toMatch(/Sunrise Dental/);
      expect(LONG_REPLY.startsWith(line.text.replace(/[.,]$/, ''))).toBe(true);
      expect(line.text.length).toBeLessThan(LONG_REPLY.length);
      await call.hangup();
      await rig.persister.settled();
      const stored = await rig.db.sql<
        { text: string; interrupted: boolean }[]
      >`select text, interrupted from call_transcripts where call_id = ${callId} and interrupted`;
      expect(stored).toEqual([{ text: line.text, interrupted: true }]);
    },
    90_000,
  );
});

describe('websocket calls', () => {
  it('answers a one-use stream URL the client streams the call over; the call runs and ends like a phone call', async () => {
    const res = await rig.place({ agentId: agentB, callType: 'websocket', participantName: 'Web visitor' });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      success: true,
      callType: 'websocket',
      status: 'initiated',
      websocketUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/media\/carrier-b\//),
    });
    const watch = rig.watchEvents(data.sessionId);
    const stream = await SimStream.connect({ carrier: 'carrier-b', url: data.websocketUrl, callId: 'client-1' });
    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
      'the greeting to be played',
    );
    watch.stop();
    // The URL is spent: a second client is refused.
    const second = await SimStream.connect({ carrier: 'carrier-b', url: data.websocketUrl, callId: 'client-2' });
    expect(await second.closed).toEqual({ code: 1008, reason: 'stream token refused: reused' });
    await stream.hangup();
    const row = await waitFor(
      () => rig.record(data.sessionId),
      (r) => r.ended_at !== null && r.latency !== null,
      'the call to end',
    );
    expect(row).toMatchObject({
      call_type: 'websocket',
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      phone_number: null,
      participant_name: 'Web visitor',
    });
    expect(
      (await rig.transcript(data.sessionId)).some((l) => l.speaker === 'assistant' && /Sunrise Dental/.test(l.text)),
    ).toBe(true);
    expect((await rig.place({ agentId: agentB, callType: 'websocket', callTime: inSeconds(600) })).statusCode).toBe(
      400,
    );
  }, 60_000);
});

describe("the carrier's word on calls nobody took", () => {
  it.each([
    ['carrier-a', 'busy', 'busy'],
    ['carrier-a', 'no-answer', 'no_answer'],
    ['carrier-b', 'busy', 'busy'],
    ['carrier-b', 'no-answer', 'no_answer'],
    ['carrier-c', 'busy', 'busy'],
    ['carrier-b', 'failed', 'failed'],
  ] as const)(
    '%s %s → outcome %s, the record finished, every callback taken',
    async (carrier, simOutcome, outcome) => {
      rig.sim.answerNextWith(simOutcome);
      const agentId = carrier === 'carrier-a' ? agentA : carrier === 'carrier-b' ? agentB : agentC;
      const res = await rig.place({ agentId, participantNumber: rig.nextNumber(OUR_NUMBERS[carrier]) });
      expect(res.statusCode, res.body).toBe(201);
      const callId = res.json().data.sessionId as string;
      const call = await rig.sim.nextCall();
      await call.ended;
      const row = await waitFor(
        () => rig.record(callId),
        (r) => r.ended_at !== null,
        'the record to end',
      );
      expect(row).toMatchObject({
        call_outcome: outcome,
        call_status: outcome === 'failed' ? 'FAILED' : 'COMPLETED',
        answered_at: null,
      });
      expect(call.webhooks.filter((w) => w.status !== 200)).toEqual([]);
    },
    30_000,
  );
});

describe('answering-machine detection (carrier-b accounts with amd)', () => {
  it('ends a call a machine answered as voicemail, without a conversation', async () => {
    await rig.db.sql`update telephony_integrations set config = config || '{"amd": true}'::jsonb
                     where organisation_id = ${rig.org.organisationId} and provider = 'carrier-b'`;
    try {
      rig.sim.answerNextWith('machine');
      const res = await rig.place({ agentId: agentB, participantNumber: rig.nextNumber() });
      expect(res.statusCode, res.body).toBe(201);
      const callId = res.json().data.sessionId as string;
      const call = await rig.sim.nextCall();
      expect(call.request.MachineDetection).toBe('Enable');
      await call.ended;
      expect(call.answerFetch?.body).toMatch(/<Response><Hangup\/><\/Response>/);
      const row = await waitFor(
        () => rig.record(callId),
        (r) => r.ended_at !== null,
        'the call to end',
      );
      expect(row).toMatchObject({
        call_status: 'COMPLETED',
        call_outcome: 'voicemail',
        meta_data: expect.objectContaining({ endReason: 'answering_machine' }),
      });
      expect(row.answered_at).not.toBeNull();
    } finally {
      await rig.db.sql`update telephony_integrations set config = config - 'amd'
                       where organisation_id = ${rig.org.organisationId} and provider = 'carrier-b'`;
    }
  }, 30_000);
});

describe("a number's calling scope", () => {
  it('refuses 403 a destination in another country until the number may call there', async () => {
    const abroad = '+442079460123';
    const blocked = await rig.place({ agentId: agentB, participantNumber: abroad, callTime: inSeconds(3600) });
    expect(blocked.statusCode, blocked.body).toBe(403);
    expect(blocked.json().message).toMatch(/GB.*SAME_COUNTRY/);
    const [number] = await rig.db.sql<
      { id: string }[]
    >`select id from phone_numbers where phone_number = ${OUR_NUMBERS['carrier-b']}`;
    const widen = (body: Record<string, unknown>) =>
      rig.app.inject({
        method: 'PUT',
        url: `/api/v1/telephony/numbers/${number!.id}/calling-scope`,
        headers: { authorization: `Bearer ${rig.org.key}` },
        payload: { organisationId: rig.org.organisationId, ...body },
      });
    const allowed = await widen({ callingScope: 'ALLOWED_COUNTRIES', allowedCountries: ['GB'] });
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json().data).toMatchObject({ callingScope: 'ALLOWED_COUNTRIES', allowedCountries: ['GB'] });
    expect(
      (await rig.place({ agentId: agentB, participantNumber: abroad, callTime: inSeconds(3600) })).statusCode,
    ).toBe(201);
    expect(
      (await rig.place({ agentId: agentB, participantNumber: '+33142685300', callTime: inSeconds(3600) })).statusCode,
    ).toBe(403);
    expect((await widen({ callingScope: 'EVERYWHERE' })).statusCode).toBe(400);
    expect((await widen({ callingScope: 'ALLOWED_COUNTRIES', allowedCountries: ['gb'] })).statusCode).toBe(400);
    expect((await widen({ callingScope: 'SAME_COUNTRY' })).json().data).toMatchObject({
      callingScope: 'SAME_COUNTRY',
      allowedCountries: [],
    });
  });
});

describe('ending and transferring at the carrier', () => {
  it('hangs a carrier-a call up over its API when Parley ends it (the stream alone would keep it alive)', async () => {
    const { callId, call } = await liveCall(agentA, OUR_NUMBERS['carrier-a']);
    const ended = await rig.app.inject({
      method: 'POST',
      url: `/api/v1/voice-sessions/room/call-${callId}/end`,
      headers: { authorization: `Bearer ${rig.org.key}` },
      payload: {},
    });
    expect(ended.statusCode, ended.body).toBe(200);
    const end = await call.ended;
    expect(end.source).toBe('api');
    expect(call.apiRequests.map((r) => r.method)).toContain('DELETE');
    await rig.persister.settled();
    expect(await rig.record(callId)).toMatchObject({ call_status: 'COMPLETED' });
  }, 60_000);

  it('finishes the record and hangs the carrier call up when the media stream drops mid-call (carrier-a)', async () => {
    const { callId, call, stream } = await liveCall(agentA, OUR_NUMBERS['carrier-a']);
    stream.drop();
    // The engine ends the session (media_dropped); the record is final; carrier-a, which keeps the call alive past
    // its stream, is told to hang up.
    const end = await call.ended;
    expect(end.source).toBe('api');
    expect(call.apiRequests.map((r) => r.method)).toContain('DELETE');
    const row = await waitFor(
      () => rig.record(callId),
      (r) => r.ended_at !== null && r.latency !== null,
      'the record to end',
    );
    expect(row).toMatchObject({
      call_status: 'COMPLETED',
      meta_data: expect.objectContaining({ endReason: 'media_dropped' }),
    });
  }, 60_000);

  it.each([['carrier-b'], ['carrier-a']] as const)(
    'moves the caller to another number through %s when the agent transfers',
    async (carrier) => {
      const { callId, call } = await liveCall(carrier === 'carrier-a' ? agentA : agentB, OUR_NUMBERS[carrier]);
      rig.bus.publish(
        subjects.callControl(callId),
        callCodecs.control.encode({ type: 'transfer', to: '+14155550999' }),
      );
      await call.ended;
      expect(call.transferredTo?.replace(/^\+/, '')).toBe('14155550999');
      const row = await waitFor(
        () => rig.record(callId),
        (r) => r.call_outcome === 'transferred',
        'the transferred end',
      );
      expect(row).toMatchObject({
        call_status: 'COMPLETED',
        meta_data: expect.objectContaining({ transferTo: '+14155550999' }),
      });
      // A transferred call is not hung up behind the caller's back.
      expect(call.apiRequests.filter((r) => r.method === 'DELETE' || r.params.Status !== undefined)).toEqual([]);
    },
    60_000,
  );

  it('keeps the agent on the line when the carrier cannot transfer (carrier-c)', async () => {
    const { callId, call, stream } = await liveCall(agentC, OUR_NUMBERS['carrier-c']);
    const watch = rig.watchEvents(callId);
    rig.bus.publish(subjects.callControl(callId), callCodecs.control.encode({ type: 'transfer', to: '+919876500999' }));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(stream.isOpen).toBe(true);
    expect(watch.events.filter((e) => e.type === 'ended')).toEqual([]);
    expect((await rig.record(callId)).call_status).toBe('IN_PROGRESS');
    watch.stop();
    await call.hangup();
    await waitFor(
      () => rig.record(callId),
      (r) => r.ended_at !== null,
      'the call to end',
    );
  }, 60_000);
});
