/**
 * A phone call whose only STT worker dies with none to take its stream back (docs/architecture.md §18), end to end:
 * the caller hears the agent say it cannot hear them, the carrier call is hung up, and the record says why —
 * FAILED, outcome failed, metaData.endReason `stt_unavailable`, the apology in its transcript.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';

let rig: PhoneCallRig;
let agentId: string;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
  agentId = await rig.createAgent(OUR_NUMBERS['carrier-b']);
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

it('apologises to the caller, hangs up, and the record ends FAILED with endReason stt_unavailable', async () => {
  const res = await rig.place({ agentId, participantNumber: rig.nextNumber() });
  expect(res.statusCode, res.body).toBe(201);
  const callId = res.json().data.sessionId as string;
  const watch = rig.watchEvents(callId);
  const call = await rig.sim.nextCall();
  const stream = await call.stream;
  await waitFor(
    () => watch.events,
    (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
    'the greeting to play',
    30_000,
  );
  const heardBefore = stream.receivedAudio().length;

  await rig.killSttWorker();
  // The worker is found dead (3.5 s), no other answers the reopen (8 s), then the apology plays.
  const row = await waitFor(
    () => rig.record(callId),
    (r) => r.ended_at !== null,
    'the call to end',
    60_000,
  );
  expect(row).toMatchObject({ call_status: 'FAILED', call_outcome: 'failed' });
  expect((row.meta_data as { endReason?: string }).endReason).toBe('stt_unavailable');

  // The caller heard the apology: more than a second of agent audio after the death, at the stream's rate.
  const after = stream.receivedAudio().length - heardBefore;
  expect(after).toBeGreaterThan(stream.format.sampleRate);
  await rig.persister.settled();
  const lines = await rig.transcript(callId);
  expect(lines.at(-1)).toMatchObject({ speaker: 'assistant', text: expect.stringMatching(/trouble hearing you/) });
  // The carrier was told to hang up.
  await waitFor(
    () => call.status,
    (status) => status === 'completed',
    'the carrier call to be hung up',
  );
  watch.stop();
}, 120_000);
