/**
 * Phone calls end to end over carrier-a (Plivo-style) and carrier-c (Exotel-style), with real audio: POST
 * /voice/session → the carrier simulator places the call and streams it to the engine → the greeting is heard → the
 * caller says a flite sentence → pocketsphinx hears it → the fake LLM answers → the caller hears it → the caller
 * hangs up → the record is COMPLETED with endedAt, callDuration, outcome and both transcript lines. Then inbound calls
 * to an assigned number, and webhooks that are not the carrier's. (carrier-b has its own file, which this follows.)
 *
 * Both carriers stream 8 kHz audio: what pocketsphinx makes of the caller is not checked word for word, only that a
 * user line was written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';

const CALLER_SENTENCE = 'please book me for tuesday morning';
const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';

let rig: PhoneCallRig;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

describe.each(['carrier-a', 'carrier-c'] as const)('phone calls over %s', (carrier) => {
  const ourNumber = OUR_NUMBERS[carrier];
  let agentId: string;

  beforeAll(async () => {
    agentId = await rig.createAgent(ourNumber);
  });

  it('places the call: the carrier streams it to the engine, the agent greets and answers, and the record ends COMPLETED', async () => {
    rig.llm.fake.chat.enqueue({ tokens: REPLY.split(/(?<= )/) });
    const participantNumber = rig.nextNumber(ourNumber);
    const res = await rig.place({ agentId, participantNumber, useCase: 'booking' });
    expect(res.statusCode, res.body).toBe(201);
    const callId = res.json().data.sessionId as string;
    const watch = rig.watchEvents(callId);

    const call = await rig.sim.nextCall();
    expect(call.carrier).toBe(carrier);
    expect(call.to).toBe(carrier === 'carrier-a' ? participantNumber.slice(1) : participantNumber);
    const stream = await call.stream;
    if (carrier === 'carrier-a') {
      // The answer request was signed and answered with a bidirectional stream that keeps the call alive.
      expect(call.answerFetch?.status).toBe(200);
      expect(call.answerFetch?.body).toMatch(
        /<Stream bidirectional="true" keepCallAlive="true" contentType="audio\/x-mulaw;rate=8000"[^>]*>ws:\/\/127\.0\.0\.1:\d+\/media\/carrier-a\/[^<]+<\/Stream>/,
      );
    } else {
      // Connect Voice AI: the stream URL went with the create request; the carrier fetched nothing.
      expect(call.answerFetch).toBeUndefined();
      expect(String(call.request.StreamUrl)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/media\/carrier-c\//);
    }

    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
      'the agent to listen',
    );
    expect((await rig.record(callId)).call_status).toBe('IN_PROGRESS');

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
    await waitFor(
      () => rig.record(callId),
      (r) => r.ended_at !== null && r.call_outcome !== null,
      'the record to end',
    );
    await rig.persister.settled();
    const final = await waitFor(
      () => rig.record(callId),
      (r) => r.latency !== null,
      "the engine's ended event",
    );
    watch.stop();
    expect(final).toMatchObject({
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      call_direction: 'OUTBOUND',
      use_case: 'booking',
      calling_number: ourNumber,
    });
    expect(final.call_duration as number).toBeGreaterThan(1_000);
    expect(final.answered_at).not.toBeNull();
    expect((final.meta_data as Record<string, unknown>).carrierCallSid).toBe(call.sid);
    const lines = await rig.transcript(callId);
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
    // Every webhook the carrier sent for the call was taken.
    await call.ended;
    expect(call.webhooks.map((w) => `${w.url.split('?')[0]} ${w.status}`).filter((w) => !w.endsWith(' 200'))).toEqual(
      [],
    );
    expect(call.webhooks.length).toBeGreaterThan(0);
  }, 90_000);

  it('answers an inbound call to an assigned number with a stream to the engine, and a polite refusal for an unassigned one', async () => {
    const voiceUrl = `${rig.publicUrl}/webhooks/${carrier}/voice`;
    const caller = rig.nextNumber(ourNumber);
    await rig.db
      .sql`update phone_numbers set agent_id = ${agentId}, routing_status = 'ASSIGNED' where phone_number = ${ourNumber}`;
    // carrier-a's application tells its hangup URL about the end; carrier-c's flow has no callback here.
    const statusCallback = carrier === 'carrier-a' ? `${rig.publicUrl}/webhooks/carrier-a/hangup` : undefined;
    const inbound = rig.sim.inboundCall(carrier, {
      from: caller,
      to: ourNumber,
      url: voiceUrl,
      method: carrier === 'carrier-c' ? 'GET' : 'POST',
      statusCallback,
    });
    const stream = await inbound.stream;
    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);
    const [row] = await rig.db.sql<{ id: string; call_direction: string; source: string; calling_number: string }[]>`
      select id, call_direction, source, calling_number from call_records where phone_number = ${caller}`;
    expect(row).toMatchObject({ call_direction: 'INBOUND', source: 'inbound', calling_number: ourNumber });
    await inbound.hangup();
    const ended = await waitFor(
      () => rig.record(row!.id),
      (r) => r.ended_at !== null,
      'the inbound call to end',
    );
    expect(ended).toMatchObject({ call_status: 'COMPLETED', call_outcome: 'completed' });
    await inbound.ended;
    expect(
      inbound.webhooks.map((w) => `${w.url.split('?')[0]} ${w.status}`).filter((w) => !w.endsWith(' 200')),
    ).toEqual([]);
    if (statusCallback) expect(inbound.requestsTo(statusCallback)).toHaveLength(1);

    await rig.db
      .sql`update phone_numbers set agent_id = null, routing_status = 'READY' where phone_number = ${ourNumber}`;
    const refused = rig.sim.inboundCall(carrier, {
      from: rig.nextNumber(ourNumber),
      to: ourNumber,
      url: voiceUrl,
      method: carrier === 'carrier-c' ? 'GET' : 'POST',
    });
    await refused.ended;
    expect(refused.answerFetch?.status).toBe(200);
    if (carrier === 'carrier-a')
      expect(refused.answerFetch?.body).toMatch(/<Response><Speak>[^<]+<\/Speak><Hangup\/><\/Response>/);
    else expect(JSON.parse(refused.answerFetch!.body)).toEqual({ url: null });
  }, 60_000);

  it("refuses status callbacks that are not the carrier's with 403", async () => {
    const res = await rig.place({
      agentId,
      participantNumber: rig.nextNumber(ourNumber),
      callTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(res.statusCode, res.body).toBe(201);
    const callId = res.json().data.sessionId as string;
    const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const status = `${rig.publicUrl}/webhooks/${carrier}/status/${callId}`;
    const params: Record<string, string> =
      carrier === 'carrier-a'
        ? { CallUUID: 'x', CallStatus: 'completed', Event: 'Hangup' }
        : { CallSid: 'x', Status: 'completed' };
    expect((await fetch(status, { method: 'POST', headers, body: form(params) })).status).toBe(403);
    const forged =
      carrier === 'carrier-a'
        ? {
            ...headers,
            'x-plivo-signature-v3': 'bm90LWEtc2lnbmF0dXJl',
            'x-plivo-signature-v3-nonce': '12345678901234567890',
          }
        : headers;
    expect(
      (
        await fetch(carrier === 'carrier-c' ? `${status}?token=forged` : status, {
          method: 'POST',
          headers: forged,
          body: form(params),
        })
      ).status,
    ).toBe(403);
    expect((await rig.record(callId)).call_status).toBe('SCHEDULED');
  });
});
