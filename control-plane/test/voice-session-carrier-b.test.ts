/**
 * POST /voice/session over carrier-b, end to end (docs/architecture.md §3): the control plane listening on a real port (the
 * carrier fetches its webhooks), the carrier simulator as carrier-b's API and phone, an engine role with its media
 * server, real TTS (flite), STT (pocketsphinx) and LLM (against the fake OpenAI server) worker roles, and the call
 * event persister, all on one test bus. Plus the refusals (400, 402, 409, 502, 503), forged webhooks, and inbound
 * calls to assigned and unknown numbers.
 *
 * pocketsphinx is wideband and carrier-b streams μ-law at 8 kHz: what it hears of the caller is not checked word for
 * word, only that a user transcript line was written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignature } from '@parley/engine/testing';
import { IntegrationStore } from '../src/telephony/integration-repository.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { seedAgent, seedOrganisation, seedPhoneNumber, seedWallet, updateAgentColumns } from './support/seed.ts';

const CALLER_SENTENCE = 'please book me for tuesday morning';
const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';
const OUR_NUMBER = OUR_NUMBERS['carrier-b'];

let rig: PhoneCallRig;
let agentId: string;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
  agentId = await rig.createAgent(OUR_NUMBER);
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

const place = (body: Record<string, unknown>, key?: string) =>
  rig.place({ agentId, participantNumber: rig.nextNumber(), ...body }, key);
const record = (id: string) => rig.record(id);

async function signedPost(url: string, params: Record<string, string>, authToken: string | undefined) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (authToken) headers['x-twilio-signature'] = twilioSignature(authToken, url, params);
  return fetch(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
}

describe('POST /voice/session over carrier-b', () => {
  it('places the call: the carrier streams it to the engine, the agent greets and answers, and the record ends COMPLETED', async () => {
    rig.llm.fake.chat.enqueue({ tokens: REPLY.split(/(?<= )/) });
    const res = await place({ useCase: 'booking', customVariables: { note: 'first visit' } });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ success: true, callType: 'sip', status: 'initiated' });
    const callId = data.sessionId as string;
    expect(data.roomName).toBe(`call-${callId}`);
    const watch = rig.watchEvents(callId);

    const call = await rig.sim.nextCall();
    expect(call.request).toMatchObject({
      To: expect.stringMatching(/^\+1415555/),
      From: OUR_NUMBER,
      Url: `${rig.publicUrl}/webhooks/carrier-b/answer/${callId}`,
      StatusCallback: `${rig.publicUrl}/webhooks/carrier-b/status/${callId}`,
    });
    const stream = await call.stream;
    expect(call.answerFetch?.status).toBe(200);
    expect(call.answerFetch?.body).toMatch(
      /<Connect><Stream url="ws:\/\/127\.0\.0\.1:\d+\/media\/carrier-b\/[^"]+"><Parameter name="callId" value="[0-9a-f]{24}"\/><\/Stream><\/Connect>/,
    );
    // The stream token was taken: it is no longer kept on the record.
    expect((await record(callId)).media_stream_url).toBeNull();

    // The greeting is heard.
    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
      'the agent to listen',
    );
    expect((await record(callId)).call_status).toBe('IN_PROGRESS');

    // The caller speaks; the fake LLM answers; the caller hears it.
    const heardBefore = stream.receivedAudio().length;
    await stream.pause(300);
    await stream.sayWav(await rig.fliteWav(CALLER_SENTENCE));
    await stream.pause(1_500);
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'transcript' && x.speaker === 'assistant' && x.text === REPLY),
      'the reply',
      30_000,
    );
    await stream.until(() => stream.receivedAudio().length > heardBefore + 8_000, 'the reply audio', 15_000);

    await call.hangup();
    const ended = await waitFor(
      () => record(callId),
      (r) => r.ended_at !== null && r.call_duration !== null && r.call_outcome !== null,
      'the record to end',
    );
    await rig.persister.settled();
    const final = await waitFor(
      () => record(callId),
      (r) => r.latency !== null,
      "the engine's ended event",
    );
    watch.stop();
    expect(ended.call_status).toBe('COMPLETED');
    expect(final).toMatchObject({
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      call_direction: 'OUTBOUND',
      use_case: 'booking',
      calling_number: OUR_NUMBER,
    });
    expect(final.call_duration as number).toBeGreaterThan(1_000);
    expect(final.answered_at).not.toBeNull();
    const lines = await rig.db.sql<
      { speaker: string; text: string }[]
    >`select speaker, text from call_transcripts where call_id = ${callId} order by start_ms`;
    expect(
      lines.some((l) => l.speaker === 'user' && l.text.length > 0),
      JSON.stringify(lines),
    ).toBe(true);
    expect(
      lines.some((l) => l.speaker === 'assistant' && l.text === REPLY),
      JSON.stringify(lines),
    ).toBe(true);
    expect(
      lines.some((l) => l.speaker === 'assistant' && /Sunrise Dental/.test(l.text)),
      JSON.stringify(lines),
    ).toBe(true);
    // The carrier's status callbacks were accepted (signed).
    const callbacks = call.requestsTo(`${rig.publicUrl}/webhooks/carrier-b/status/${callId}`);
    expect(callbacks.map((w) => `${w.params.CallStatus} ${w.status} ${w.body}`)).toEqual(
      callbacks.map((w) => `${w.params.CallStatus} 200 <Response/>`),
    );
  }, 90_000);

  it('records a future callTime as SCHEDULED without placing it', async () => {
    const callTime = new Date(Date.now() + 3_600_000).toISOString();
    const res = await place({ callTime });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.status).toBe('scheduled');
    const row = await record(res.json().data.sessionId);
    expect(row).toMatchObject({ call_status: 'SCHEDULED', dispatched_at: null });
    expect(rig.sim.calls.filter((c) => c.direction === 'outbound' && c.to === row.phone_number)).toEqual([]);
    expect((await place({ callTime: new Date(Date.now() - 60_000).toISOString() })).statusCode).toBe(400);
  });

  it('refuses 409 for the same agent, number and key owner within 5 seconds', async () => {
    const participantNumber = rig.nextNumber();
    const first = await place({ participantNumber, callTime: new Date(Date.now() + 3_600_000).toISOString() });
    expect(first.statusCode, first.body).toBe(201);
    const second = await place({ participantNumber, callTime: new Date(Date.now() + 3_600_000).toISOString() });
    expect(second.statusCode, second.body).toBe(409);
  });

  it('refuses 400 for an inactive agent, a CHAT agent, a missing participantNumber, and a scheduled web call', async () => {
    const inactive = await rig.createAgent(OUR_NUMBER);
    await updateAgentColumns(rig.db.sql, inactive, { is_active: false });
    expect((await place({ agentId: inactive })).json()).toMatchObject({
      code: 'invalid_state',
      message: expect.stringMatching(/not active/),
    });
    expect((await place({ agentId: inactive })).statusCode).toBe(400);
    const chat = await seedAgent(rig.db.sql, rig.org.organisationId, 'CHAT');
    const chatRes = await place({ agentId: chat });
    expect(chatRes.statusCode).toBe(400);
    expect(chatRes.json().message).toMatch(/VOICE/);
    const missing = await place({ participantNumber: undefined });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/participantNumber/);
    const web = await place({ callType: 'web', callTime: new Date(Date.now() + 3_600_000).toISOString() });
    expect(web.statusCode).toBe(400);
    expect(web.json().message).toMatch(/callTime/);
    const notOurs = await place({ callingNumber: '+19995550000' });
    expect(notOurs.statusCode).toBe(400);
    expect((await place({ agentId: '0123456789abcdef01234567' })).statusCode).toBe(404);
  });

  it('refuses 402 when the wallet is below the minimum', async () => {
    const poor = await seedOrganisation(rig.db.sql, 'Poor');
    await seedWallet(rig.db.sql, poor.organisationId, { balanceMinor: 10 });
    await seedPhoneNumber(rig.db.sql, poor.organisationId, { provider: 'carrier-b', phoneNumber: '+14155550199' });
    const poorAgent = await seedAgent(rig.db.sql, poor.organisationId, 'VOICE');
    await updateAgentColumns(rig.db.sql, poorAgent, { calling_number: '+14155550199' });
    const res = await place({ agentId: poorAgent }, poor.key);
    expect(res.statusCode, res.body).toBe(402);
  });

  it('answers 502 when the carrier refuses the call, and finishes the record FAILED', async () => {
    // The carrier refuses: the account's credentials are not the carrier's (401 Authenticate).
    const unknownSid = `AC${'0'.repeat(32)}`;
    const bad = await seedOrganisation(rig.db.sql, 'Refused');
    await seedWallet(rig.db.sql, bad.organisationId, { balanceMinor: 5_000 });
    await new IntegrationStore(rig.secrets).save(rig.db.sql, {
      organisationId: bad.organisationId,
      provider: 'carrier-b',
      accountRef: unknownSid,
      config: {},
      credentials: { account_sid: unknownSid, auth_token: 'wrong-token' },
    });
    await seedPhoneNumber(rig.db.sql, bad.organisationId, { provider: 'carrier-b', phoneNumber: '+14155550188' });
    const badAgent = await seedAgent(rig.db.sql, bad.organisationId, 'VOICE');
    await updateAgentColumns(rig.db.sql, badAgent, {
      calling_number: '+14155550188',
      greeting_message: 'Hello.',
      agent_task: 'Talk.',
    });
    const refused = await place({ agentId: badAgent }, bad.key);
    expect(refused.statusCode, refused.body).toBe(502);
    const [row] = await rig.db.sql<
      { call_status: string; call_outcome: string }[]
    >`select call_status, call_outcome from call_records where agent_id = ${badAgent}`;
    expect(row).toMatchObject({ call_status: 'FAILED', call_outcome: 'failed' });
  }, 30_000);

  it('refuses a forged or unsigned webhook with 403', async () => {
    const res = await place({ callTime: new Date(Date.now() + 3_600_000).toISOString() });
    const callId = res.json().data.sessionId as string;
    const url = `${rig.publicUrl}/webhooks/carrier-b/status/${callId}`;
    const params = { AccountSid: rig.sim.accounts['carrier-b'].accountSid, CallSid: 'CA0', CallStatus: 'completed' };
    expect((await signedPost(url, params, undefined)).status).toBe(403);
    expect((await signedPost(url, params, 'not-the-token')).status).toBe(403);
    expect(
      (await signedPost(`${rig.publicUrl}/webhooks/carrier-b/answer/${callId}`, params, 'not-the-token')).status,
    ).toBe(403);
    expect(
      (
        await signedPost(
          `${rig.publicUrl}/webhooks/carrier-b/voice`,
          { ...params, To: OUR_NUMBER, From: '+15550001111' },
          'not-the-token',
        )
      ).status,
    ).toBe(403);
    expect((await record(callId)).call_status).toBe('SCHEDULED');
    // Signed properly, the same callback is taken.
    const accepted = await signedPost(url, params, rig.sim.accounts['carrier-b'].authToken);
    expect(accepted.status).toBe(200);
    expect((await record(callId)).ended_at).not.toBeNull();
  });

  it('answers an inbound call to an assigned number with a stream to the engine, and a polite refusal for an unknown one', async () => {
    await rig.db
      .sql`update phone_numbers set agent_id = ${agentId}, routing_status = 'ASSIGNED' where phone_number = ${OUR_NUMBER} and organisation_id = ${rig.org.organisationId}`;
    const inbound = rig.sim.inboundCall('carrier-b', {
      from: '+15550002222',
      to: OUR_NUMBER,
      url: `${rig.publicUrl}/webhooks/carrier-b/voice`,
    });
    const stream = await inbound.stream;
    expect(inbound.answerFetch?.body).toMatch(/<Connect><Stream url="ws:/);
    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
    const [row] = await rig.db.sql<
      { id: string; call_direction: string; source: string; calling_number: string; phone_number: string }[]
    >`
      select id, call_direction, source, calling_number, phone_number from call_records where phone_number = '+15550002222'`;
    expect(row).toMatchObject({ call_direction: 'INBOUND', source: 'inbound', calling_number: OUR_NUMBER });
    await inbound.hangup();
    await waitFor(
      () => record(row!.id),
      (r) => r.ended_at !== null,
      'the inbound call to end',
    );

    const unknown = rig.sim.inboundCall('carrier-b', {
      from: '+15550003333',
      to: '+14155559999',
      url: `${rig.publicUrl}/webhooks/carrier-b/voice`,
    });
    await unknown.ended;
    expect(unknown.answerFetch?.status).toBe(200);
    expect(unknown.answerFetch?.body).toMatch(/<Response><Say>[^<]+<\/Say><Hangup\/><\/Response>/);
  }, 60_000);

  it('answers 503 when no engine takes the call, and finishes the record FAILED', async () => {
    await rig.engine!.close();
    rig.engine = undefined;
    const res = await place({});
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().code).toBe('unavailable');
    const [row] = await rig.db.sql<
      { call_status: string }[]
    >`select call_status from call_records where organisation_id = ${rig.org.organisationId} order by created_at desc limit 1`;
    expect(row!.call_status).toBe('FAILED');
  }, 30_000);
});
